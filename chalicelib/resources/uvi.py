"""UVI documents (unterjährige Verbrauchsinformation, § 6a HeizkostenV): the monthly
consumption information a property manager must give the residents of buildings with
remotely readable meters. Each is a file for one object, covering a period and one or more
consumption categories; an entity type of its own (area `uvi`), stored like documents."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, declare
from chalicelib.errors import invalid_at
from chalicelib.field_groups import VISIBILITY
from chalicelib.registry import operation
from chalicelib.uploads import direct

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import UviUploadArgs

# Consumption category code -> (German, English).
CATEGORIES = {
    "heating": ("Heizung", "Heating"),
    "hotWater": ("Warmwasser", "Hot water"),
    "coldWater": ("Kaltwasser", "Cold water"),
}
MAX_PERIOD_DAYS = 366

FIELDS: dict[str, Any] = {
    "objectId": s.ref("object", "The property (Liegenschaft, WEG or Mietshaus) the UVI is for."),
    "categories": {
        **s.array(
            s.enum("; ".join(f"`{code}`: {de}" for code, (de, _) in CATEGORIES.items()), CATEGORIES),
            "The consumption categories (Verbrauchsarten) the UVI reports, e.g. heating and hot water.",
            max_items=len(CATEGORIES),
        ),
        "minItems": 1,
        "uniqueItems": True,
    },
    "periodStart": s.date(
        "First day of the period the UVI covers (Abrechnungszeitraum), usually the first of a month."
    ),
    "periodEnd": s.date("Last day of the period the UVI covers; at most a year after periodStart."),
    "title": s.string("Title shown to residents, e.g. Verbrauchsinformation Oktober 2026.", max_length=300),
    "visibility": s.enum("`portal` (default for UVIs: residents see it) or `internal`.", VISIBILITY),
    **direct.FILE_FIELDS,
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "categories": ("Verbrauchsarten", "Consumption types"),
        "periodStart": ("Zeitraum ab", "Period start"),
        "periodEnd": ("Zeitraum bis", "Period end"),
        "title": ("Titel", "Title"),
        "visibility": ("Sichtbarkeit", "Visibility"),
        "fileName": ("Dateiname", "File name"),
        "contentType": ("Dateityp", "File type"),
        "size": ("Größe (Bytes)", "Size (bytes)"),
        "checksum": ("Prüfsumme (SHA-256)", "Checksum (SHA-256)"),
    },
)
READONLY = direct.FILE_READONLY


def _check(data: dict[str, Any], entity_id: str | None) -> None:
    start, end = data.get("periodStart"), data.get("periodEnd")
    if start and end:
        first, last = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
        if last < first:
            raise invalid_at("data.periodEnd", "the period ends before it starts")
        if (last - first).days >= MAX_PERIOD_DAYS:
            raise invalid_at("data.periodEnd", f"a UVI covers at most {MAX_PERIOD_DAYS} days")


UVI = declare(
    EntityType(
        name="uviDocument",
        plural="uviDocuments",
        label_text="UVI document",
        prefix="uvi",
        area="uvi",
        fields=FIELDS,
        filters=("objectId",),
        readonly=READONLY,
        required=("objectId", "categories", "periodStart", "periodEnd"),
        check=_check,
    )
)

DOC = """A UVI (unterjährige Verbrauchsinformation) tells the residents of a building with remotely readable
meters their consumption during the year (§ 6a HeizkostenV: monthly). Each UVI document is a file for one
object (`objectId`), covering a period (`periodStart` to `periodEnd`, at most a year) and one or more
consumption `categories` (heating, hot water, cold water). `visibility` is `portal` unless set to
`internal`. File fields (`fileName`, `contentType`, `size`, `checksum`) are set by the upload."""

DATA = s.obj(
    {name: schema for name, schema in FIELDS.items() if name not in READONLY},
    required=list(UVI.required),
    description="The UVI's object, categories and period (and optionally title and visibility).",
)


@operation(
    name="uvi.upload",
    kind="command",
    summary="Upload a UVI (monthly consumption information) for an object, with its categories and period.",
    docs=DOC + "\n\n" + direct.FILE_DOCS + "\n\nThe event `uviDocument.created` follows.",
    args=s.obj({"data": DATA, "resource": direct.RESOURCE}, required=["data", "resource"]),
    result=s.obj(
        {
            "uviDocument": s.entity_output(
                {**FIELDS, **direct.DOWNLOAD_FIELDS}, "The stored UVI document, with a download link."
            )
        },
        required=["uviDocument"],
    ),
    scope="write:uvi",
    errors=direct.FILE_ERRORS,
    accepts_files=True,
    example={
        "data": {
            "objectId": "<id or alias>",
            "categories": ["heating", "hotWater"],
            "periodStart": "2026-10-01",
            "periodEnd": "2026-10-31",
        },
        "resource": {"fileName": "UVI_2026-10.pdf", "contentType": "application/pdf", "content": direct.EXAMPLE_PDF},
    },
)
def upload(ctx: CallContext, args: UviUploadArgs) -> dict[str, Any]:
    accepted = direct.accept(args["resource"], "resource")
    data = {"visibility": "portal", **args["data"]}
    return {"uviDocument": direct.store_with_file(ctx, UVI, data, accepted, path="data")}


declare_list(
    UVI,
    name="uvi.list",
    docs="Lists the UVI documents of an object, oldest upload first, each with the period and categories it covers. "
    + DOC,
    filters={"object": s.ref("object", "The object whose UVIs to list.")},
    fields={"object": "objectId"},
    required_filters=("object",),
    summary="List an object's UVI documents with the periods they cover.",
)
declare_show(
    UVI,
    name="uvi.show",
    arg="uviDocument",
    docs=DOC + "\n\nThe answer carries `downloadUrl`, a presigned link to the file valid for a few minutes.",
    extra=direct.download,
    extra_fields=direct.DOWNLOAD_FIELDS,
)
declare_update(
    UVI,
    name="uvi.update",
    arg="uviDocument",
    docs=DOC + "\n\nThe object and the file cannot change; upload a new UVI instead.",
    example={"title": "Verbrauchsinformation Oktober 2026", "visibility": "internal"},
    immutable=("objectId",),
    summary="Change a UVI document's title, visibility, categories or period.",
)
declare_lifecycle(UVI, prefix="uvi", arg="uviDocument")
