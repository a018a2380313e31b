"""Exports of a tenant (issue 34): `exports.create` queues one, the export worker
(chalicelib/exports/) writes it, `exports.show` follows it and hands out the file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import config, ids
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.errors import Conflict, Forbidden, NotFound, Unavailable
from chalicelib.exports import lines
from chalicelib.exports import queue as export_queue
from chalicelib.exports.keys import ENTITIES_FILE, FILES_FILE, export_key
from chalicelib.log import logger
from chalicelib.registry import deprecated, operation
from chalicelib.scopes import SCOPE_READ, SCOPE_WRITE, area_scope
from chalicelib.store import exports as store
from chalicelib.uploads import files

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import ExportsCreateArgs, ExportsShowArgs

EXPORT_PREFIX = "exp"
STATUSES = [store.PENDING, store.RUNNING, store.DONE, store.FAILED]
EXPORT_ID = s.checked(s.string("The export's id (exp_...).", max_length=40, pattern=ids.pattern_of(EXPORT_PREFIX)))


def _type_names() -> list[str]:
    return [kind.etype.name for kind in lines.kinds()]


LINE_DOC = """The file (`downloadUrl`, a gzipped NDJSON file) has one line per entity:
`{"type", "upsert", "alias", "aliases", "data"}`. `upsert` is the command that takes the line back
(`contacts.upsert`, `units.upsert`, ...), `data` exactly what that command takes for the item (no
read-only fields), every reference in it written as the referenced entity's alias (its id when it has
none), `alias` the entity's first alias of your integration (its id when it has none: the upserts map
an id from elsewhere like an alias), `aliases` all of them. The lines come in an order that can be
re-imported: referenced before referencing (objects, contacts with companies before their people, unit
groups, units, contracts, ...). So posting each line's `data` plus `alias` as an item to its `upsert`,
in order, rebuilds the tenant elsewhere (`pmctl import` does it; docs/concepts/sync-and-bulk.md, "Bulk data").

Documents and UVI documents have no upsert (`upsert` is null): their lines carry the metadata, and
`file`, the name of the file's entry in a second archive, a zip at `filesUrl` (entries
`<type>/<alias>/<file name>`)."""


@operation(
    name="exports.create",
    kind="command",
    summary="Export the tenant's entities (all, or some types) to a file, in the background.",
    docs=f"""Starts an export of every entity this key may read (its read areas and objects), or of the
types `entityTypes` names (each of an area the key may read; else 403), and answers at once with its
`id` and `status` (`pending`); follow it with `exports.show`, which hands out the file when it is
`done`. One export of a key runs at a time (the keys of an integration share one): asking while it
runs is 409 `export_running` (`runningExportId` names it). A tenant runs at most
{config.MAX_RUNNING_EXPORTS} exports at once over all its keys and integrations (`PM_EXPORTS_PER_TENANT`):
past it 409 `export_limit_reached` (`maxRunningExports`), so no key keeps the others from exporting for
long. A running export's worker renews its place as it writes (every 30 s); a worker that dies frees it
{config.EXPORT_LEASE_SECONDS} s later (the export reads as `failed`; start a new one). The export reads as
the key reads when it runs; a key disabled meanwhile exports nothing (the export fails). Webhooks are
not exported. Files are kept {config.EXPORT_KEEP_DAYS} days.

{LINE_DOC}""",
    args=s.obj(
        {
            "entityTypes": {
                **s.array(
                    s.enum("An entity type.", _type_names()),
                    "Only these entity types (default: every type the key may read).",
                    max_items=len(_type_names()),
                ),
                "minItems": 1,
                "uniqueItems": True,
            }
        }
    ),
    result=s.obj(
        {
            "id": EXPORT_ID,
            "status": s.enum("The export's status.", STATUSES),
            "entityTypes": s.array(s.string("An entity type."), "The types it exports.", max_items=50),
        },
        required=["id", "status", "entityTypes"],
    ),
    scope=area_scope(SCOPE_WRITE, "exports"),
    weight=config.EXPORT_WEIGHT,
    idempotent=True,
    errors=(codes.EXPORT_RUNNING, codes.EXPORT_LIMIT_REACHED),
    example={"entityTypes": ["object", "unit", "contact", "contract"]},
)
def create_export(ctx: CallContext, args: ExportsCreateArgs) -> dict[str, Any]:
    wanted = args.get("entityTypes")
    kinds = [kind for kind in lines.kinds() if wanted is None or kind.etype.name in wanted]
    unreadable = [k.etype.name for k in kinds if not k.readable_by(ctx.scopes)]
    if wanted is not None and unreadable:
        raise Forbidden(
            f"This key may not read {', '.join(unreadable)}.",
            code=codes.MISSING_SCOPE,
            extra={"requiredScopes": sorted({area_scope(SCOPE_READ, k.etype.area) for k in kinds})},
        )
    types = [k.etype.name for k in kinds if k.etype.name not in unreadable]
    export_id = ids.new_id(EXPORT_PREFIX)
    asked = {"keyId": ctx.key_id, "channel": ctx.channel, "requestId": ctx.request_id}
    ceiling = config.max_running_exports()
    busy = store.create(ctx, export_id, {"entityTypes": types, "askedBy": asked}, ceiling)
    if busy is not None and busy.running is not None:
        whose = "this key's integration" if ctx.integration_id else "this key"
        raise Conflict(
            f"An export of {whose} runs already ({busy.running}); follow it with exports.show, or ask again "
            "when it is done.",
            code=codes.EXPORT_RUNNING,
            extra={"runningExportId": busy.running},
        )
    if busy is not None:
        raise Conflict(
            f"This tenant runs {busy.held} exports already, of other keys; a tenant runs at most {ceiling} at "
            "once. Ask again when one of them is done.",
            code=codes.EXPORT_LIMIT_REACHED,
            extra={"maxRunningExports": ceiling},
        )
    try:
        export_queue.enqueue(ctx.tenant_id, export_id)
    except Exception:  # noqa: BLE001 - any failure to queue: the export is settled failed, the caller retries
        logger.exception("could not queue an export", extra={"exportId": export_id})
        export = store.get(ctx.tenant_id, export_id)
        if export is not None:
            store.settle(export, store.FAILED, error="The export could not be queued.")
        raise Unavailable("The export could not be queued; try again shortly.", headers={"Retry-After": "5"}) from None
    return {"id": export_id, "status": store.PENDING, "entityTypes": types}


EXPORT_FIELDS: dict[str, Any] = {
    "id": EXPORT_ID,
    "status": s.enum("The export's status.", STATUSES),
    "entityTypes": s.array(s.string("An entity type."), "The types it exports.", max_items=50),
    "counts": {
        "type": "object",
        "additionalProperties": {"type": "integer"},
        "description": "Entities exported per entity type (when done).",
    },
    "lines": {**s.integer("Lines in the file (when done)."), "nullable": True},
    "size": {**s.integer("The file's size in bytes, compressed (when done)."), "nullable": True},
    "downloadUrl": {**s.string("The file (gzipped NDJSON), when done.", max_length=4000), "nullable": True},
    "filesUrl": {
        **s.string("The documents' files (zip), when any were exported.", max_length=4000),
        "nullable": True,
    },
    "urlExpiresAt": {**s.timestamp("When the links stop working."), "nullable": True},
    "createdAt": s.timestamp("When it was asked for."),
    "startedAt": {**s.timestamp("When the worker began."), "nullable": True},
    "finishedAt": {**s.timestamp("When it was done or failed."), "nullable": True},
    "expiresAt": s.timestamp("When the file and this record are removed."),
    "error": {**s.string("Why it failed."), "nullable": True},
}
EXPORT_REQUIRED = ["id", "status", "entityTypes", "counts", "createdAt", "expiresAt"]
# Until the next release exports.show also takes `id` for `export` and answers the export's fields
# at the top level beside `export`, as it did before every show took and answered its thing's name.
UNTIL = "until the next release"


@operation(
    name="exports.show",
    kind="query",
    summary="An export's status, its counts per entity type and, when done, its download links.",
    docs=f"""The export `export` (its id, as exports.create answered it) that this key started, as
`{{"export": {{...}}}}`: `status` (`pending`, `running`, `done`, `failed`), `counts` per entity type
(when done; each equals the type's list total for this key), and when done `downloadUrl`, a presigned
link to the file valid for {files.DOWNLOAD_URL_SECONDS // 60} minutes (ask again for a fresh one), and
`filesUrl` when documents with files were exported. The file is kept {config.EXPORT_KEEP_DAYS} days
(`expiresAt`); afterwards the export is 404. Another key's export is 404 too.

Deprecated, until the next release: the argument `id` (the old name of `export`; both given must
agree) and the export's fields at the top level of the answer, beside `export` (the old shape of this
answer: read them from `export`).

{LINE_DOC}""",
    args=s.obj(
        {
            "export": {**EXPORT_ID, "description": "The export's id (exp_...), as exports.create answered it."},
            "id": deprecated(EXPORT_ID, f"the old name of `export`, accepted {UNTIL}."),
        },
        required=["export"],
    ),
    result=s.obj(
        {
            "export": s.obj(EXPORT_FIELDS, required=EXPORT_REQUIRED, description="The export."),
            **{name: deprecated(field, f"{UNTIL}; read `export.{name}`.") for name, field in EXPORT_FIELDS.items()},
        },
        required=["export", *EXPORT_REQUIRED],
    ),
    scope=area_scope(SCOPE_READ, "exports"),
    idempotent=True,
    example={"export": "exp_01JD3M4R5S6T7V8W9X0Y1Z2A3B"},
    renamed_args=(("id", "export"),),
)
def show_export(ctx: CallContext, args: ExportsShowArgs) -> dict[str, Any]:
    export_id = args["export"]
    export = store.get(ctx.tenant_id, export_id)
    if export is None or export.data.get("askedBy", {}).get("keyId") != ctx.key_id or export.expired:
        raise NotFound(f"No export {export_id} of this key.")
    data, status = export.data, export.status
    shown: dict[str, Any] = {
        "id": export.export_id,
        "status": status,
        "entityTypes": list(data.get("entityTypes") or []),
        "counts": {name: int(n) for name, n in (data.get("counts") or {}).items()},
        "lines": _number(data.get("lines")),
        "size": _number(data.get("size")),
        "downloadUrl": None,
        "filesUrl": None,
        "urlExpiresAt": None,
        "createdAt": export.created_at,
        "startedAt": data.get("startedAt"),
        "finishedAt": data.get("finishedAt"),
        "expiresAt": export.expires_at,
        "error": data.get("error") if status == store.FAILED else None,
    }
    if status == store.FAILED and shown["error"] is None:
        shown["error"] = "The export did not finish in its attempts."
    if status == store.DONE:
        name = f"export-{export.export_id}"
        key = export_key(ctx.tenant_id, export.export_id, ENTITIES_FILE)
        shown["downloadUrl"], shown["urlExpiresAt"] = files.download_url(key, f"{name}.ndjson.gz", "application/gzip")
        if data.get("files"):
            key = export_key(ctx.tenant_id, export.export_id, FILES_FILE)
            shown["filesUrl"], _ = files.download_url(key, f"{name}-files.zip", "application/zip")
    return {"export": shown, **shown}  # the top-level fields, deprecated: UNTIL


def _number(value: Any) -> int | None:
    return int(value) if value is not None else None
