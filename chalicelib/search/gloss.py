"""German wording of each domain tool, for search: "Kontakt anlegen", "Lastschriftmandat
löschen". Tool names and summaries are English; a German agent asks in German, and the
embedding of a German gloss next to the English summary finds the tool (the interface:
other languages than English search by embedding only).

A gloss is composed from the tool's resource (its name without the action) and its action
(the last name segment), plus the German terms of the thesaurus concepts that name the tool
(chalicelib/search/thesaurus)."""

from __future__ import annotations

from functools import lru_cache

from chalicelib.search import terms

# Longest prefix wins: "processes.updates" before "processes".
RESOURCES_DE: dict[str, str] = {
    "accounting.bankaccountinfos": "Bankverbindung, Bankkonto",
    "accounting.object.bankaccountinfos": "Bankkonten eines Objekts (Hausgeldkonto, Rücklagenkonto)",
    "accounting.bankaccountuse": "Kontoverwendung eines Vertrags (welches Konto wofür)",
    "accounting.contract.bankaccountuse": "gültige Kontoverwendung eines Vertrags zum Stichtag",
    "accounting.directdebitmandate": "SEPA-Lastschriftmandat",
    "accounting.directdebitmandates": "SEPA-Lastschriftmandate",
    "accounting.inboundinvoices": "Eingangsrechnung, Lieferantenrechnung, Rechnung eines Dienstleisters",
    "advisors": "Verwaltungsbeirat, Beirat eines Objekts",
    "aliases": "Alias, externe Kennung, Fremdschlüssel",
    "apikeys": "API-Schlüssel, Zugangsschlüssel eines Agenten",
    "apikeys.requests": "Anfrageprotokoll, Aufrufe eines API-Schlüssels",
    "audit": "Änderungsprotokoll, Audit-Trail, wer hat was geändert",
    "callrecords": "Telefonnotiz, Anrufprotokoll",
    "changes": "Änderungen seit einem Zeitpunkt, Änderungsfeed zum Nachziehen eines Abgleichs",
    "contacts": "Kontakt, Person, Mieter, Eigentümer, Firma",
    "contracts": "Vertrag, Mietvertrag, Verwaltervertrag",
    "documents": "Dokument, Datei, PDF, Scan, Protokoll",
    "documents.typemappings": "Dokumenttypen und Kategorien",
    "documents.uploads": "Massen-Upload vieler Dokumente",
    "exports": "Export aller Daten des Mandanten, Datensicherung, Datenexport, Gesamtexport",
    "info": "Identität des eigenen Schlüssels: Mandant, Integration und Rechte",
    "objectaddresses": "Objektadresse, Anschrift einer Liegenschaft",
    "objectgroups": "Objektgruppe, Portfolio, Bestandsgruppe, Gruppe von Objekten",
    "objects": "Objekt, Liegenschaft, Immobilie, WEG, Mietshaus, Wohnanlage",
    "openapi": "OpenAPI-Beschreibung der Schnittstelle",
    "posts": "Beitrag, Aushang, Mitteilung",
    "processes": "Vorgang, Ticket, Fall",
    "processes.updates": "Eintrag in einem Vorgang, Vorgangsnotiz, Verlauf, Kommentar",
    "search": "Suche nach Name, Nummer oder Adresse über alle Einträge",
    "responsibilities": "Zuständigkeit, Ansprechpartner für ein Objekt, Objektbetreuer, Dienstleister",
    "signatories": "Unterzeichner, Zeichnungsberechtigter",
    "status": "Betriebszustand des Dienstes",
    "tenant": "Mandant, Verwaltungsunternehmen",
    "unitgroups": "Einheitengruppe, Haus einer Wohnanlage, Aufgang, Treppenhaus",
    "units": "Einheit, Wohnung, Gewerbeeinheit, Stellplatz",
    "uvi": "unterjährige Verbrauchsinformation (UVI)",
    "webhooks": "Webhook, Ereignisbenachrichtigung",
    "webhooks.deliveries": "Webhook-Zustellungen, Zustellung eines Webhooks, Zustellprotokoll",
    "webhooks.eventTypes": "Ereignistypen für Webhooks",
}

ACTIONS_DE: dict[str, str] = {
    "create": "neu anlegen, erstellen, erfassen, eintragen, hinterlegen, hinzufügen",
    "update": "ändern, bearbeiten, aktualisieren, korrigieren, ergänzen",
    "delete": "löschen, entfernen",
    "restore": "gelöschte wiederherstellen",
    "show": "anzeigen, abrufen, nachsehen, Details",
    "detail": "anzeigen, abrufen, nachsehen, Details",
    "list": "auflisten, suchen, alle anzeigen",
    "upload": "hochladen",
    "merge": "zusammenführen, Dubletten bereinigen",
    "assign": "zuweisen, bestellen",
    "revoke": "abberufen, entziehen",
    "upsert": "anlegen oder ändern",
    "resolve": "auflösen, nachschlagen",
    "revert": "rückgängig machen, zurücksetzen",
    "retry": "erneut zustellen",
    "test": "testen, Testereignis senden",
    "disable": "deaktivieren, sperren",
    "generatereference": "Mandatsreferenz erzeugen",
    "fordate": "zum Stichtag ermitteln",
    "progress": "Fortschritt verfolgen",
    "listforobject": "eines Objekts auflisten",
    "spec": "abrufen",
    "usage": "Nutzung: Aufrufe pro Tag und Operation zählen",
    "recover": "verpasste Ereignisse seit einem Zeitpunkt erneut zustellen",
    "secret": "Signaturgeheimnis erneuern, rotieren",
}
_LIST = "auflisten, suchen, alle anzeigen"  # plural-named queries (`contacts`, `units`) list
_SINGULAR = ("tenant", "info", "status")  # named queries without an action that show one thing


@lru_cache(maxsize=1024)
def resource_of(name: str) -> str:
    """The resource a tool is about: its name's longest prefix with a German wording."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in RESOURCES_DE:
            return prefix
    return parts[0]


@lru_cache(maxsize=1)
def _thesaurus_terms() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for concept in terms.concepts():
        for op in concept.operations:
            found.setdefault(op, []).append(concept.de.preferred)
    return found


def german(name: str) -> str:
    """'Kontakt, Person, Mieter, Eigentümer, Firma anlegen, erstellen, erfassen'."""
    resource = resource_of(name)
    noun = RESOURCES_DE.get(resource, resource)
    action = name[len(resource) :].lstrip(".").split(".")[0] if name != resource else ""
    verb = ACTIONS_DE.get(action) or ("anzeigen" if name in _SINGULAR else _LIST)
    return f"{noun} {verb}".strip()


def german_terms(name: str, limit: int = 12) -> list[str]:
    """German preferred terms of the thesaurus concepts about this tool (at most `limit`)."""
    return _thesaurus_terms().get(name, [])[:limit]


def english_terms(name: str) -> list[str]:
    """English preferred and admitted terms of the concepts about this tool (for BM25)."""
    out: list[str] = []
    for concept in terms.concepts():
        if name in concept.operations:
            out += [concept.en.preferred, *concept.en.admitted]
    return out
