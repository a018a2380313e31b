"""Objects: the properties a tenant manages (a WEG, a rental building, mixed or commercial)."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, Period, declare
from chalicelib.field_groups import POSTAL_ADDRESS

OBJECT_TYPES = {
    "weg": ("Eigentümergemeinschaft (WEG)", "Condominium (WEG)"),
    "rental": ("Mietshaus", "Rental property"),
    "mixed": ("Wohn- und Geschäftshaus", "Residential and commercial"),
    "commercial": ("Gewerbeobjekt", "Commercial property"),
}
HEATING_TYPES = {
    "gas": ("Gasheizung", "Gas heating"),
    "oil": ("Ölheizung", "Oil heating"),
    "districtHeating": ("Fernwärme", "District heating"),
    "heatPump": ("Wärmepumpe", "Heat pump"),
    "electric": ("Elektroheizung", "Electric heating"),
    "wood": ("Holz oder Pellets", "Wood or pellets"),
    "solar": ("Solarthermie", "Solar thermal"),
    "other": ("Sonstige", "Other"),
}

FIELDS: dict[str, Any] = {
    "name": s.string("Display name, e.g. WEG Musterstraße 12.", max_length=300),
    "number": s.string("The manager's object number, e.g. 1042 or WEG-0042.", max_length=50),
    "type": s.enum(
        "`weg`: Wohnungseigentümergemeinschaft (condominium owners' association, managed under the WEG); "
        "`rental`: rental property (Mietverwaltung); `mixed`: residential and commercial; "
        "`commercial`: commercial only.",
        OBJECT_TYPES,
    ),
    "address": POSTAL_ADDRESS,
    "constructionYear": s.integer("Year of construction (Baujahr).", minimum=1000, maximum=2100),
    "modernisationYear": s.integer("Year of the last major modernisation.", minimum=1000, maximum=2100),
    "plotArea": s.decimal("Plot area in m² (Grundstücksfläche)."),
    "livingArea": s.decimal("Total living area in m² (Wohnfläche)."),
    "commercialArea": s.decimal("Total commercial area in m² (Gewerbefläche)."),
    "landRegistry": s.obj(
        {
            "court": s.string("Local court keeping the land register (Amtsgericht)."),
            "district": s.string("Land-register district (Grundbuchbezirk)."),
            "sheet": s.string("Sheet number (Blatt).", max_length=50),
            "parcel": s.string("Cadastral parcel (Flur / Flurstück).", max_length=100),
        },
        description="Land-register entry (Grundbuch).",
    ),
    "heatingType": s.enum("Main heating.", HEATING_TYPES),
    "energyCertificate": s.obj(
        {
            "kind": s.enum(
                "Energieausweis: demand (Bedarfsausweis) or consumption (Verbrauchsausweis).",
                {
                    "demand": ("Bedarfsausweis", "Energy demand certificate"),
                    "consumption": ("Verbrauchsausweis", "Energy consumption certificate"),
                },
            ),
            "value": s.decimal("Energy figure in kWh/(m²·a)."),
            "efficiencyClass": s.enum("Efficiency class.", ["A+", "A", "B", "C", "D", "E", "F", "G", "H"], codes=True),
            "validUntil": s.date("Last day of validity."),
        },
        description="Energy performance certificate.",
    ),
    "managementStart": s.date("First day under management."),
    "managementEnd": s.date("Last day under management, when the mandate ends."),
    "notes": s.text("Free-text notes."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "name": ("Name", "Name"),
        "number": ("Objektnummer", "Object number"),
        "type": ("Objektart", "Object type"),
        "address": ("Adresse", "Address"),
        "street": ("Straße", "Street"),
        "houseNumber": ("Hausnummer", "House number"),
        "addition": ("Adresszusatz", "Address addition"),
        "postalCode": ("Postleitzahl", "Postal code"),
        "city": ("Ort", "City"),
        "countryCode": ("Land", "Country"),
        "constructionYear": ("Baujahr", "Year of construction"),
        "modernisationYear": ("Jahr der Modernisierung", "Year of modernisation"),
        "plotArea": ("Grundstücksfläche (m²)", "Plot area (m²)"),
        "livingArea": ("Wohnfläche (m²)", "Living area (m²)"),
        "commercialArea": ("Gewerbefläche (m²)", "Commercial area (m²)"),
        "landRegistry": ("Grundbuch", "Land register"),
        "court": ("Amtsgericht", "Local court"),
        "district": ("Gemarkung", "Cadastral district"),
        "sheet": ("Grundbuchblatt", "Folio"),
        "parcel": ("Flurstück", "Parcel"),
        "heatingType": ("Heizungsart", "Heating type"),
        "energyCertificate": ("Energieausweis", "Energy certificate"),
        "kind": ("Ausweisart", "Certificate type"),
        "value": ("Energiekennwert (kWh/(m²·a))", "Energy figure (kWh/(m²·a))"),
        "efficiencyClass": ("Effizienzklasse", "Efficiency class"),
        "validUntil": ("Gültig bis", "Valid until"),
        "managementStart": ("Verwaltungsbeginn", "Management start"),
        "managementEnd": ("Verwaltungsende", "Management end"),
        "notes": ("Notizen", "Notes"),
    },
)


OBJECT = declare(
    EntityType(
        name="object",
        plural="objects",
        prefix="obj",
        area="objects",
        fields=FIELDS,
        required=("name", "type"),
        periods=(Period("managementStart", "managementEnd"),),
    )
)

DOC = """An object is one property under management: a community of owners (`type: weg`), a rental
building (`rental`), or mixed or commercial property. Units, contracts, processes and documents belong
to an object. Areas are decimal strings in m²."""

declare_list(OBJECT, name="objects", docs="Lists all objects of the tenant. " + DOC, paging_required=False)
declare_show(OBJECT, name="objects.show", arg="object", docs=DOC)
declare_create(
    OBJECT,
    name="objects.create",
    arg="object",
    docs=DOC,
    example={
        "name": "WEG Musterstraße 12",
        "number": "WEG-0042",
        "type": "weg",
        "address": {
            "street": "Musterstraße",
            "houseNumber": "12",
            "postalCode": "10115",
            "city": "Berlin",
            "countryCode": "DE",
        },
        "constructionYear": 1928,
        "livingArea": "1840.50",
    },
)
declare_update(OBJECT, name="objects.update", arg="object", docs=DOC, example={"heatingType": "districtHeating"})
declare_lifecycle(OBJECT, prefix="objects", arg="object")
