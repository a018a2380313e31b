"""Every error code the service answers, once: its HTTP status and what it means.

A code is the stable `code` of a problem+json answer (and of an upload's `failure`, an
audit.revert skip, a `pmctl` refusal). Raise sites name a constant of this table
(`Conflict(..., code=codes.STALE_VERSION)`), the error classes of errors.py take their
default code from it, and each operation's "Errors" docs (docs.py) render the status and
meaning from here: grep finds every place a code rises, and the docs cannot give a code a
status it never has. tests/unit/test_error_codes.py holds the table complete and used.

This module imports nothing of the service; every other module may import it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorCode:
    code: str  # snake_case, as in the answer
    status: int | None  # the HTTP status it answers with; None: only reported, never an answer (an upload's failure)
    meaning: str  # one sentence for the docs: "- <status> `<code>`: <meaning>"
    also: tuple[int, ...] = ()  # further statuses it is raised with (the entry says where)


# --- the defaults of the error classes (errors.py) -----------------------------------------

INTERNAL_ERROR = ErrorCode(
    "internal_error", 500, "an unexpected failure; the `requestId` identifies it in the service's logs."
)
INVALID_REQUEST = ErrorCode(
    "invalid_request",
    400,
    "an argument breaks a rule beyond its shape (a check digit, an order of dates, a value another field rules out); "
    "`errors` names it.",
)
UNAUTHORIZED = ErrorCode("unauthorized", 401, "the request is not authenticated.")
FORBIDDEN = ErrorCode("forbidden", 403, "the key may not do this.")
NOT_FOUND = ErrorCode(
    "not_found", 404, "a referenced entity (id or alias) does not exist in this tenant; `errors` names the argument."
)
METHOD_NOT_ALLOWED = ErrorCode(
    "method_not_allowed", 405, "the path is served with another HTTP method; `Allow` names it."
)
UNSUPPORTED_MEDIA_TYPE = ErrorCode(
    "unsupported_media_type",
    415,
    "the body's Content-Type is not accepted; send application/json (file uploads: multipart/form-data).",
)
CONFLICT = ErrorCode("conflict", 409, "the request conflicts with the stored state.")
GONE = ErrorCode("gone", 410, "what the request asks for is no longer served.")
PAYLOAD_TOO_LARGE = ErrorCode(
    "payload_too_large", 413, "the body (or a file in it) is larger than the operation accepts."
)
THROTTLED = ErrorCode(
    "throttled",
    429,
    "too many requests (of the key, of a sign-up address, or to the data store); retry after `Retry-After` seconds.",
)
TENANT_THROTTLED = ErrorCode(
    "tenant_throttled",
    429,
    "too many requests of the tenant's keys together (the tenant's limit, above each key's); "
    "retry after `Retry-After` seconds.",
)
UNAVAILABLE = ErrorCode(
    "unavailable", 503, "a service the request depends on is unavailable; retry after `Retry-After` seconds."
)

# --- the request: route, body, arguments, Idempotency-Key (http.py, validation.py, uploads/form.py)

NO_ROUTE = ErrorCode("no_route", 404, "nothing is served at this method and path.")
MISDIRECTED_REQUEST = ErrorCode(
    "misdirected_request",
    421,
    "the Host header names no address this server answers for (`make serve` answers its loopback names only).",
)
UNKNOWN_OPERATION = ErrorCode("unknown_operation", 404, "no query or command of this kind has this name.")
MALFORMED_JSON = ErrorCode(
    "malformed_json", 400, "the body is not a JSON object (not JSON, a lone UTF-16 surrogate, or nested too deeply)."
)
MALFORMED_FORM = ErrorCode(
    "malformed_form", 400, "the multipart/form-data body cannot be read as one part per argument."
)
VALIDATION_FAILED = ErrorCode(
    "validation_failed",
    400,
    "an argument is missing, unknown or of the wrong shape; `errors` lists each with its path.",
)
INVALID_IDEMPOTENCY_KEY = ErrorCode(
    "invalid_idempotency_key",
    400,
    "the `Idempotency-Key` is empty, longer than 255 characters, or holds anything but printable ASCII.",
)
IDEMPOTENCY_KEY_REUSED = ErrorCode(
    "idempotency_key_reused", 409, "this `Idempotency-Key` was used with a different request."
)
IDEMPOTENCY_IN_PROGRESS = ErrorCode(
    "idempotency_in_progress",
    409,
    "a request with this `Idempotency-Key` is still running; retry after `Retry-After` seconds.",
)
IDEMPOTENCY_OUTCOME_UNKNOWN = ErrorCode(
    "idempotency_outcome_unknown",
    409,
    "the request that claimed this `Idempotency-Key` ended without an answer; check what it did, then use a new key.",
)

# --- the key and the account (auth.py, account.py, throttle.py, v1.py, store/keys.py) -------

MISSING_KEY = ErrorCode("missing_key", 401, "no `Authorization: Bearer <API key>` header.")
INVALID_KEY = ErrorCode("invalid_key", 401, "the Authorization header is malformed or repeated, or names no API key.")
KEY_DISABLED = ErrorCode("key_disabled", 401, "the API key has been disabled.")
KEY_EXPIRED = ErrorCode("key_expired", 401, "the API key has expired.")
WRONG_AUDIENCE = ErrorCode(
    "wrong_audience",
    401,
    "the key is an OAuth access token granted for the other face (its `audience`: the MCP server or the REST "
    "interface, RFC 8707); ask for a token for this one.",
)
# 401 to a call with a key of the integration; 403 to the operator (pmctl) connecting it or issuing it a key
INTEGRATION_DISABLED = ErrorCode(
    "integration_disabled", 401, "the integration the key belongs to has been disabled.", also=(403,)
)
MISSING_SCOPE = ErrorCode(
    "missing_scope", 403, "the key lacks a scope the operation needs; `requiredScopes` lists them."
)
SCOPE_ESCALATION = ErrorCode(
    "scope_escalation", 403, "the key asks for a scope, or objects, its creator does not hold."
)
OUTSIDE_KEY_OBJECTS = ErrorCode(
    "outside_key_objects",
    403,
    "the key is limited to objects, and the command would create or move something outside them "
    "(or is not open to such keys).",
)
TRIAL_ENDED = ErrorCode(
    "trial_ended",
    403,
    "the tenant's free trial has ended (`trialEndsAt`); the data is kept, access returns with a plan.",
)
VERSION_RETIRED = ErrorCode(
    "version_retired", 410, "version 1 of the interface is switched off; `successor` names the version 2 path."
)
EMAIL_TAKEN = ErrorCode(
    "email_taken", 409, "this e-mail address signed up already (between the sign-up and its confirmation)."
)
CONFIRMATION_FAILED = ErrorCode(
    "confirmation_failed",
    400,
    "the code is wrong, used, or no longer valid (too old or too many tries); sign up again for a new one.",
)
MEMBER_EXISTS = ErrorCode("member_exists", 409, "the address is a member of the company already.")
MEMBER_LIMIT_REACHED = ErrorCode(
    "member_limit_reached", 409, "the company has its most members and invitations; remove someone first."
)
INVITATION_PENDING = ErrorCode(
    "invitation_pending", 403, "the person has not accepted the company's invitation; no sign-in reaches it before."
)
AGENT_HAS_KEYS = ErrorCode(
    "agent_has_keys", 409, "the agent has two active keys (one plus a rotation): disable the old one first."
)
SANDBOX_NOT_LIVE = ErrorCode(
    "sandbox_not_live", 409, "a sandbox has no plan and cannot become live: sign up a company of its own for live data."
)
KEY_LIMIT_REACHED = ErrorCode(
    "key_limit_reached", 409, "the tenant holds as many live keys as it may; disable one it no longer needs first."
)
SANDBOX_LIMIT_REACHED = ErrorCode(
    "sandbox_limit_reached",
    409,
    "the company holds as many sandboxes as it may (`maxSandboxes`); delete one it no longer needs first.",
)
SANDBOX_CHANGES_THROTTLED = ErrorCode(
    "sandbox_changes_throttled",
    429,
    "the company has created and reset as many sandboxes as it may in a day; retry after `Retry-After` seconds.",
)

# --- integrations, managed by the operator (store/integrations.py through pmctl) ------------

INTEGRATION_NAME_TAKEN = ErrorCode(
    "integration_name_taken", 409, "an integration of this name exists already (names ignore case)."
)
INTEGRATION_NOT_FOUND = ErrorCode("integration_not_found", 404, "no integration has this id.")
INTEGRATION_NOT_CONNECTED = ErrorCode(
    "integration_not_connected", 403, "the integration is not connected to the tenant; connect it first."
)

# --- writes (store/) ------------------------------------------------------------------------

WRITE_CONFLICT = ErrorCode("write_conflict", 409, "the write collided with a concurrent one; retry.")
TRANSACTION_CONFLICT = ErrorCode(
    "transaction_conflict",
    503,
    "the write collided with a concurrent transaction and was not applied; "
    "send the same request again after `Retry-After` seconds.",
)
STALE_VERSION = ErrorCode("stale_version", 409, "the entity changed since the `version` you sent; read it again.")
STILL_REFERENCED = ErrorCode(
    "still_referenced", 409, "live entities reference it; `referencedBy` lists them (up to 100)."
)
NOT_DELETED = ErrorCode("not_deleted", 409, "it is not deleted.")
REFERENCE_DELETED = ErrorCode(
    "reference_deleted", 409, "it references an entity that is deleted now; restore that first."
)
MERGED = ErrorCode("merged", 409, "it was merged into another entity (contacts).")
MERGE_INTO_SELF = ErrorCode("merge_into_self", 409, "source and target are the same contact.")
MERGE_CONFLICT = ErrorCode(
    "merge_conflict", 409, "pointing a referrer at the merge target would break its rules; `errors` names them."
)
ALIAS_TAKEN = ErrorCode("alias_taken", 409, "an alias already names another entity; `errors` names the entry.")
# Values unique within a tenant (EntityType.unique, store/uniques.py): one code per unique field.
MANDATE_REFERENCE_TAKEN = ErrorCode(
    "mandate_reference_taken", 409, "another mandate of the tenant holds this reference (case-insensitive)."
)

# --- rules of particular operations (resources/) -------------------------------------------

PROCESS_NOT_CLOSED = ErrorCode("process_not_closed", 409, "archiving needs status `done` or `cancelled`.")
PROCESS_ARCHIVED = ErrorCode(
    "process_archived", 409, "the process is archived; unarchive it (`isArchived: false`) first."
)
WEBHOOK_LIMIT_REACHED = ErrorCode(
    "webhook_limit_reached", 409, "the tenant holds as many webhooks as it may; delete one first."
)
NO_VALID_BANK_ACCOUNT_USE = ErrorCode(
    "no_valid_bank_account_use", 404, "the contract has no use for this purpose valid on that day."
)
CHANGED_LATER = ErrorCode("changed_later", 409, "the entity changed after the record; send `force` to overwrite.")
FILTER_TOO_BROAD = ErrorCode(
    "filter_too_broad", 400, "the filter matches more records than one request reads or reverts; narrow it."
)
WEBHOOK_DISABLED = ErrorCode(
    "webhook_disabled", 409, "the webhook is disabled: enable it (webhooks.update) before recovering its events."
)
RECOVERY_RUNNING = ErrorCode(
    "recovery_running",
    409,
    "a recovery of this webhook is still sending; wait until its events are delivered (webhooks.deliveries.list), "
    "then recover from its `until`.",
)
RECOVERY_LIMIT_REACHED = ErrorCode(
    "recovery_limit_reached", 429, "the webhook was recovered as often as it may be today; retry after the time given."
)
EXPORT_RUNNING = ErrorCode(
    "export_running",
    409,
    "an export of this key (or of its integration) runs already (`runningExportId`); follow it with "
    "exports.show, or ask again when it is done.",
)
EXPORT_LIMIT_REACHED = ErrorCode(
    "export_limit_reached",
    409,
    "the tenant runs as many exports at once as it may (`maxRunningExports`), of other keys; ask again when "
    "one is done.",
)
INVALID_CURSOR = ErrorCode(
    "invalid_cursor",
    400,
    "the `after` argument is no cursor this list handed out (changes.list, audit.list); pass an earlier"
    " answer's `next`.",
)
SINCE_OUT_OF_RETENTION = ErrorCode(
    "since_out_of_retention",
    400,
    "the `since` argument lies before the 30 days the change feed keeps; start within them "
    "(and list the entities to catch up).",
)
NOT_REVERTIBLE = ErrorCode(
    "not_revertible",
    400,
    "the record is a change of the account (API key, sign-up, plan, throttle, integration); "
    "with a filter such records are skipped.",
)

# --- files (uploads/) ------------------------------------------------------------------------

FILE_TYPE_NOT_ALLOWED = ErrorCode(
    "file_type_not_allowed",
    400,
    "the file's bytes are not of an allowed type (HTML, scripts, executables are never accepted).",
)
FILE_TYPE_MISMATCH = ErrorCode("file_type_mismatch", 400, "the declared `contentType` contradicts the file's bytes.")
EMPTY_FILE = ErrorCode("empty_file", 400, "the file has no content.")
ARCHIVE_TOO_LARGE = ErrorCode(
    "archive_too_large",
    400,
    "a ZIP (or Office/ODF) file whose directory is past the caps on entries or size; "
    "it is refused before it is opened.",
)
# A bulk upload's file is refused after the fact, in its `failure` (documents.uploads.status), with
# the codes above or these:
UPLOAD_EXPIRED = ErrorCode("upload_expired", None, "the file arrived after its upload URL had expired.")
FILE_MISSING = ErrorCode("file_missing", None, "the file was gone before it could be registered.")
SIZE_MISMATCH = ErrorCode("size_mismatch", None, "the file's size differs from the size its upload declared.")

# --- MCP (mcp/) ------------------------------------------------------------------------------

UNKNOWN_TOOL = ErrorCode("unknown_tool", 404, "no tool has this name; meta.tools.search finds tool names.")
INVALID_TRANSFORM = ErrorCode(
    "invalid_transform", 400, "a JMESPath transform is not valid, or failed on the result it was applied to."
)
TRANSFORM_TOO_COSTLY = ErrorCode(
    "transform_too_costly", 400, "a JMESPath transform went past its budget of time or of values built; simplify it."
)
TOO_MANY_EXPRESSIONS = ErrorCode(
    "too_many_expressions",
    400,
    "a pipeline step holds more `$expr` values than a step or a pipeline may; refer to whole earlier results.",
)
UNKNOWN_RESULT_NAME = ErrorCode(
    "unknown_result_name", 400, "a pipeline step's `$expr` names a result no earlier step named with `as`."
)
RESULT_TOO_LARGE = ErrorCode(
    "result_too_large",
    400,
    "the answer is over the size limit of a tool result; ask for a smaller page or select fields with a transform.",
)


def _collect() -> dict[str, ErrorCode]:
    table: dict[str, ErrorCode] = {}
    for name, entry in globals().items():
        if isinstance(entry, ErrorCode):
            if entry.code in table or name != entry.code.upper():
                raise ValueError(f"error code {entry.code!r}: declared twice, or under another name ({name})")
            table[entry.code] = entry
    return table


TABLE: dict[str, ErrorCode] = _collect()  # code -> entry


def of(code: str) -> ErrorCode:
    """The entry of a code an error already carries (every ApiError's code comes from here)."""
    return TABLE[code]
