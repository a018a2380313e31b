"""Settings read from the environment (set per stage in .chalice/config.json).

Read on use, not at import, so tests and the local stack can set them first. Each environment
variable is declared once as a `Setting` (name, default, meaning) and read through it, and each
limit named in LIMITS with its meaning: the docs' configuration page is generated from both
(generate/reference, docs/reference/configuration.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """An environment variable the service reads."""

    variable: str
    meaning: str  # one sentence for the docs
    default: str = ""  # what an unset variable reads as ("": none)
    shown: str = ""  # the default as the docs show it, where the caller supplies it (`throttle.DEFAULT_RATE`)

    def value(self, default: str | None = None) -> str:
        """As set (even empty), else the caller's `default`, else the declared one."""
        return os.environ.get(self.variable, self.default if default is None else default)


SETTINGS: dict[str, Setting] = {}  # variable -> setting, in the order declared


def _setting(variable: str, meaning: str, default: str = "", shown: str = "") -> Setting:
    if variable in SETTINGS:
        raise ValueError(f"setting {variable} declared twice")
    SETTINGS[variable] = entry = Setting(variable, meaning, default, shown)
    return entry


# Largest JSON body a command accepts. API Gateway allows 10 MB and Lambda 6 MB;
# entity payloads are a few KB, so 1 MiB leaves room while keeping memory bounded.
MAX_BODY_BYTES = 1024 * 1024

# Entries one aliases.upsert call may carry: each entry writes two items and a
# DynamoDB transaction holds at most 100.
MAX_ALIAS_ENTRIES = 50
# Items one `<list>.upsert` call may carry (resources/upserts.py): each is its own write, so a call
# of 500 stays within the API function's time and the 1 MB body.
MAX_UPSERT_ITEMS = 500
# Agents a person connects by OAuth (live grants they approved) at most: each renews a key hourly.
MAX_GRANTS_PER_MEMBER = 20
# exports.create counts as this many calls against the rate limits: it reads the whole tenant.
EXPORT_WEIGHT = 100
# Exports (exports.create): a file is kept this long (the bucket's lifecycle deletes it; the
# export's record expires with it).
EXPORT_KEEP_DAYS = 7
# Running exports (store/exports.py): one per key (an integration's keys together), at most
# MAX_RUNNING_EXPORTS of a tenant at once (PM_EXPORTS_PER_TENANT); a running export's worker holds
# its place for EXPORT_LEASE_SECONDS and renews it as it writes, so a worker that died frees it then.
MAX_RUNNING_EXPORTS = 3
EXPORT_LEASE_SECONDS = 120

# How long an authenticated key stays cached in a warm Lambda before it is read again.
KEY_CACHE_SECONDS = 10.0

# A key's lastUsedAt is written at most this often, so reads stay one DynamoDB call.
LAST_USED_RESOLUTION_SECONDS = 60.0

# Idempotency records are kept this long (the contract promises 24 h).
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
# How long a claimed Idempotency-Key counts as running. API Gateway and the API function give
# up after 29 s, so an older claim without an answer belongs to a request that died.
IDEMPOTENCY_RUNNING_SECONDS = 30

TRIAL_DAYS = 30

# API keys expire: when the creator names no expiry, after DEFAULT_KEY_DAYS; never later
# than MAX_KEY_DAYS after creation. Rotation (a new key for the same agent) renews.
DEFAULT_KEY_DAYS = 365
MAX_KEY_DAYS = 730

# A tenant holds at most MAX_LIVE_KEYS live keys (not disabled, not expired), every kind of key
# together (its own, its integrations', the sign-up's first): past it, creating one answers 409.
MAX_LIVE_KEYS = 100

# The per-key request log (apikeys.requests.list) keeps each request this long.
REQUEST_LOG_DAYS = 30
# apikeys.usage reads at most this many of a key's log entries, the newest first (some 250 bytes
# each: about 5 MB, five Query pages); past it the answer says which time on it counted in full.
USAGE_MAX_ENTRIES = 20_000


SEARCH_MODEL_BUCKET = _setting(
    "PM_SEARCH_MODEL_BUCKET",
    "The S3 bucket the MCP function fetches the search models from when its bundle lacks them "
    "(the template sets it from the SearchModelBucket parameter).",
)
REQUEST_LOG = _setting(
    "PM_REQUEST_LOG",
    "`logs`: a request's log entry is printed for the WriteRequestLogs function to store in batches "
    "(the template sets it on the HTTP functions); `table`: written to the table at once.",
    "table",
)


def search_model_bucket() -> str | None:
    """The bucket the MCP function fetches the search models from when its bundle lacks them
    (search/model_files.py; the template sets it from the SearchModelBucket parameter)."""
    return SEARCH_MODEL_BUCKET.value() or None


def request_log_via_logs() -> bool:
    """In the cloud (PM_REQUEST_LOG=logs, set by the template on the HTTP functions) a request's
    log entry is printed for the WriteRequestLogs function to store in batches; locally it is
    written to the table at once (store/requests.py)."""
    return REQUEST_LOG.value() == "logs"


# Reads a filter or a count could make without bound stop at a documented size (the limits of
# docs/reference/configuration.md).
# A list's total counts at most COUNT_LIMIT index entries (about 15 MB of keys, 13 Query pages);
# past it the answer says `pagination.capped` and a narrower filter finds the rest.
COUNT_LIMIT = 100_000
AUDIT_OPERATION_SCAN = 2_000  # audit records the `operation` filter reads (what the other filters leave)
# aliases.list of a key limited to objects reads this many entries (alphabetical) to narrow them to
# its reach: no index says an alias's object, so past it the answer says `pagination.capped`
ALIAS_REACH_SCAN = 2_000
REVERT_RECORD_LIMIT = 500  # audit records one audit.revert by filter undoes (each is a few writes)


SALES_CONTACT = _setting(
    "PM_SALES_CONTACT",
    "Where a tenant whose trial ended turns to continue (named in the 403).",
    "sales@propertymanagement.example",
)
TABLE_NAME = _setting("PM_TABLE_NAME", "The DynamoDB table that holds every tenant's data.", "pm-local")
AWS_REGION = _setting("AWS_REGION", "The AWS region (Lambda sets it).")
AWS_DEFAULT_REGION = _setting("AWS_DEFAULT_REGION", "The AWS region where AWS_REGION is unset.", "eu-central-1")
KEY_ENVIRONMENT = _setting(
    "PM_KEY_ENVIRONMENT", "`live` or `test`: the middle part of issued keys (`pm_live_...`, `pm_test_...`).", "test"
)
UPLOAD_QUEUE_URL = _setting("PM_UPLOAD_QUEUE_URL", "The queue S3 notifies of uploaded files (bulk uploads).")
EXPORT_QUEUE_URL = _setting("PM_EXPORT_QUEUE_URL", "Where exports.create queues an export for the export worker.")
SANDBOX_QUEUE_URL = _setting(
    "PM_SANDBOX_QUEUE_URL", "Where the console queues a sandbox's planting or reset for the sandbox worker."
)
UPLOAD_DLQ_URL = _setting("PM_UPLOAD_DLQ_URL", "Upload notices that kept failing wait here; `status` reports them.")


def sales_contact() -> str:
    """Where a tenant whose trial ended turns to continue (named in the 403)."""
    return SALES_CONTACT.value()


def table_name() -> str:
    return TABLE_NAME.value()


def region() -> str:
    return AWS_REGION.value() or AWS_DEFAULT_REGION.value() or AWS_DEFAULT_REGION.default


def key_environment() -> str:
    """`live` or `test`: the middle part of issued keys (pm_live_..., pm_test_...)."""
    return "live" if KEY_ENVIRONMENT.value() == "live" else "test"


def upload_queue_url() -> str | None:
    return UPLOAD_QUEUE_URL.value() or None


def export_queue_url() -> str | None:
    """Where exports.create queues an export for the export worker (exports/worker.py)."""
    return EXPORT_QUEUE_URL.value() or None


EXPORTS_PER_TENANT = _setting(
    "PM_EXPORTS_PER_TENANT",
    "Exports of a tenant that run at once, over all its keys and integrations (each runs one at a time).",
    str(MAX_RUNNING_EXPORTS),
)


def max_running_exports() -> int:
    """Exports of a tenant that run at once (PM_EXPORTS_PER_TENANT, default MAX_RUNNING_EXPORTS; at least 1)."""
    return max(1, int(EXPORTS_PER_TENANT.value()))


def sandbox_queue_url() -> str | None:
    """Where the console queues a sandbox's planting or reset for the sandbox worker (sandbox/worker.py)."""
    return SANDBOX_QUEUE_URL.value() or None


def upload_dead_letter_url() -> str | None:
    """Upload notices that kept failing wait here; `status` reports them."""
    return UPLOAD_DLQ_URL.value() or None


# Webhooks: a tenant holds at most MAX_WEBHOOKS (each can hold MAX_IN_FLIGHT attempts at once,
# store/webhooks.py: so one tenant's receivers hold at most 25 x 4 senders); a delivery's log
# entry is kept WEBHOOK_LOG_DAYS (DynamoDB TTL), long past its last retry (~28 h).
MAX_WEBHOOKS = 25
WEBHOOK_LOG_DAYS = 14
# A rotated signing secret keeps signing beside the new one this long (both signatures in
# `webhook-signature`), so the receiver can switch without losing a delivery; then it is dropped.
WEBHOOK_SECRET_OVERLAP_HOURS = 24
# Per attempt the delivery log keeps the receiver's status, duration and the first bytes of its
# answer (never a request header); a delivery keeps its last WEBHOOK_ATTEMPTS_KEPT attempts.
WEBHOOK_RESPONSE_BYTES = 2048
WEBHOOK_ATTEMPTS_KEPT = 10
# The health badge: the success rate of a webhook's last WEBHOOK_HEALTH_WINDOW settled deliveries.
WEBHOOK_HEALTH_WINDOW = 50
# webhooks.deliveries.recover sends a webhook its events again: one recovery of a webhook runs at a
# time (until its redeliveries are settled), and a webhook is recovered at most this often a day.
RECOVERIES_PER_DAY = 10


DELIVERY_QUEUE_URL = _setting("PM_DELIVERY_QUEUE_URL", "The FIFO queue of webhook deliveries.")
DELIVERY_DLQ_URL = _setting(
    "PM_DELIVERY_DLQ_URL", "Delivery messages the worker kept failing on (not receivers failing: those settle)."
)
STREAM_DLQ_URL = _setting(
    "PM_STREAM_DLQ_URL",
    "The queue that describes change-stream batches that kept failing (the stream's on-failure destination); "
    "unset, they wait in the table.",
)
WEBHOOK_RETRY_SCALE = _setting(
    "PM_WEBHOOK_RETRY_SCALE", "Scales the webhook retry schedule (tests: `0.001`, 5 s become 5 ms).", "1"
)
THROTTLE_RATE = _setting(
    "PM_THROTTLE_RATE", "Every key's calls a second unless its tenant sets a limit.", shown="throttle.DEFAULT_RATE"
)
THROTTLE_BURST = _setting(
    "PM_THROTTLE_BURST", "Every key's calls at once unless its tenant sets a limit.", shown="throttle.DEFAULT_BURST"
)
TENANT_THROTTLE_RATE = _setting(
    "PM_TENANT_THROTTLE_RATE",
    "Every tenant's calls a second over all its keys together unless the operator sets a limit (0 turns it off).",
    shown="throttle.DEFAULT_TENANT_RATE",
)
TENANT_THROTTLE_BURST = _setting(
    "PM_TENANT_THROTTLE_BURST",
    "Every tenant's calls at once over all its keys together unless the operator sets a limit.",
    shown="throttle.DEFAULT_TENANT_BURST",
)
MAX_KEYS_PER_TENANT = _setting(
    "PM_MAX_KEYS_PER_TENANT",
    "The cap of a tenant's live keys (at least 1, the sign-up's first key).",
    str(MAX_LIVE_KEYS),
)


def delivery_queue_url() -> str | None:
    """The FIFO queue of webhook deliveries (events/delivery_queue.py)."""
    return DELIVERY_QUEUE_URL.value() or None


def delivery_dead_letter_url() -> str | None:
    """Delivery messages the worker kept failing on (not receivers failing: those settle)."""
    return DELIVERY_DLQ_URL.value() or None


def stream_dead_letter_url() -> str | None:
    """In the cloud, change-stream batches that kept failing are described on this queue
    (the stream's on-failure destination); locally they wait in the table (events/deadletters.py)."""
    return STREAM_DLQ_URL.value() or None


def webhook_retry_scale() -> float:
    """Tests shrink the retry schedule (PM_WEBHOOK_RETRY_SCALE=0.001: 5 s become 5 ms)."""
    return float(WEBHOOK_RETRY_SCALE.value())


def throttle_default(rate: float, burst: int) -> tuple[float, int]:
    """Every key's overall limit unless its tenant sets one: PM_THROTTLE_RATE calls a second,
    PM_THROTTLE_BURST at once (chalicelib/throttle.py holds the documented defaults)."""
    return float(THROTTLE_RATE.value(str(rate))), int(THROTTLE_BURST.value(str(burst)))


def tenant_throttle_default(rate: float, burst: int) -> tuple[float, int]:
    """Every tenant's limit over all its keys together unless the operator sets one:
    PM_TENANT_THROTTLE_RATE calls a second, PM_TENANT_THROTTLE_BURST at once (0 turns it off)."""
    return float(TENANT_THROTTLE_RATE.value(str(rate))), int(TENANT_THROTTLE_BURST.value(str(burst)))


def max_live_keys() -> int:
    """The cap of a tenant's live keys (PM_MAX_KEYS_PER_TENANT, default MAX_LIVE_KEYS); at least
    1, the sign-up's first key."""
    return max(1, int(MAX_KEYS_PER_TENANT.value()))


# Sign-ups (and any other anonymous command) per source address: SIGNUP_LIMIT per
# SIGNUP_WINDOW_SECONDS, unless PM_SIGNUP_LIMIT reads "<count>/<seconds>" ("0/1": off).
SIGNUP_LIMIT = 10
SIGNUP_WINDOW_SECONDS = 3600
SIGNUP_LIMIT_SETTING = _setting(
    "PM_SIGNUP_LIMIT",
    "Sign-ups (and other anonymous commands) per source address, `<count>/<seconds>` (`0/1`: off).",
    shown=f"{SIGNUP_LIMIT}/{SIGNUP_WINDOW_SECONDS}",
)


def _per_window(setting: Setting, count: int, seconds: int) -> tuple[int, int]:
    """A limit of `count` per `seconds`, unless the setting reads "<count>/<seconds>"."""
    spec = setting.value()
    if not spec:
        return count, seconds
    given, _, window = spec.partition("/")
    return int(given), max(1, int(window or seconds))


def signup_limit() -> tuple[int, int]:
    return _per_window(SIGNUP_LIMIT_SETTING, SIGNUP_LIMIT, SIGNUP_WINDOW_SECONDS)


# The OAuth authorization server's anonymous endpoints that keep or read records (an authorize
# request is stored until it expires, a token request reads and writes grants and keys): each
# OAUTH_LIMIT per OAUTH_WINDOW_SECONDS per source address, on a budget of its own, unless
# PM_OAUTH_LIMIT reads "<count>/<seconds>" ("0/1": off). Wider than the sign-up limit: the agents
# of one office behind one address each renew their token hourly. Registration counts as a sign-up.
OAUTH_LIMIT = 60
OAUTH_WINDOW_SECONDS = 600
OAUTH_LIMIT_SETTING = _setting(
    "PM_OAUTH_LIMIT",
    "OAuth authorize and token requests (each on its own) per source address, `<count>/<seconds>` (`0/1`: off).",
    shown=f"{OAUTH_LIMIT}/{OAUTH_WINDOW_SECONDS}",
)


def oauth_limit() -> tuple[int, int]:
    return _per_window(OAUTH_LIMIT_SETTING, OAUTH_LIMIT, OAUTH_WINDOW_SECONDS)


# Sign-up confirms the e-mail address: the code mailed lasts SIGNUP_CODE_MINUTES and allows
# CODE_ATTEMPTS tries. Requests for mail to an address (sign-up and sign-in codes, invitations,
# each kind on its own) are limited per address and requester, ADDRESS_LIMIT per
# ADDRESS_WINDOW_SECONDS (PM_ADDRESS_LIMIT "<count>/<seconds>"), and per address across
# requesters, ADDRESS_TOTAL_LIMIT (PM_ADDRESS_TOTAL_LIMIT), which a source that redeemed a code of
# the address before passes (throttle.take_for_address).
SIGNUP_CODE_MINUTES = 30
SIGNIN_CODE_MINUTES = 10
CODE_ATTEMPTS = 5
ADDRESS_LIMIT = 5
ADDRESS_TOTAL_LIMIT = 20
ADDRESS_WINDOW_SECONDS = 3600
ADDRESS_LIMIT_SETTING = _setting(
    "PM_ADDRESS_LIMIT",
    "Mail requests to one address per requester (sign-up and sign-in codes, invitations), `<count>/<seconds>`.",
    shown=f"{ADDRESS_LIMIT}/{ADDRESS_WINDOW_SECONDS}",
)
ADDRESS_TOTAL_LIMIT_SETTING = _setting(
    "PM_ADDRESS_TOTAL_LIMIT",
    "Mail requests to one address across requesters, `<count>/<seconds>`.",
    shown=f"{ADDRESS_TOTAL_LIMIT}/{ADDRESS_WINDOW_SECONDS}",
)


def address_limit() -> tuple[int, int]:
    return _per_window(ADDRESS_LIMIT_SETTING, ADDRESS_LIMIT, ADDRESS_WINDOW_SECONDS)


def address_total_limit() -> tuple[int, int]:
    return _per_window(ADDRESS_TOTAL_LIMIT_SETTING, ADDRESS_TOTAL_LIMIT, ADDRESS_WINDOW_SECONDS)


# A company sends at most INVITE_LIMIT invitations per INVITE_WINDOW_SECONDS (PM_INVITE_LIMIT
# "<count>/<seconds>"): its name is in each mail, so invitations must not become a mailing list.
INVITE_LIMIT = 20
INVITE_WINDOW_SECONDS = 24 * 3600
INVITE_LIMIT_SETTING = _setting(
    "PM_INVITE_LIMIT",
    "Invitations a company sends, `<count>/<seconds>`.",
    shown=f"{INVITE_LIMIT}/{INVITE_WINDOW_SECONDS}",
)


def invite_limit() -> tuple[int, int]:
    return _per_window(INVITE_LIMIT_SETTING, INVITE_LIMIT, INVITE_WINDOW_SECONDS)


# Sandboxes a company's owners make in the console (sandbox/lifecycle.py): each is a tenant of its
# own, so a company holds at most MAX_SANDBOXES (PM_SANDBOXES_PER_COMPANY) at once and creates or
# resets them at most SANDBOX_CHANGE_LIMIT times per SANDBOX_CHANGE_WINDOW_SECONDS
# (PM_SANDBOX_CHANGE_LIMIT "<count>/<seconds>"); its calls and invitations count against the
# company's own limits (account.accountable).
MAX_SANDBOXES = 3
SANDBOX_CHANGE_LIMIT = 10
SANDBOX_CHANGE_WINDOW_SECONDS = 24 * 3600
SANDBOXES_PER_COMPANY = _setting(
    "PM_SANDBOXES_PER_COMPANY",
    "Sandboxes a company holds at once (deleted ones do not count).",
    str(MAX_SANDBOXES),
)
SANDBOX_CHANGE_LIMIT_SETTING = _setting(
    "PM_SANDBOX_CHANGE_LIMIT",
    "Sandbox creations and resets a company makes, `<count>/<seconds>` (`0/1`: off).",
    shown=f"{SANDBOX_CHANGE_LIMIT}/{SANDBOX_CHANGE_WINDOW_SECONDS}",
)


def max_sandboxes() -> int:
    """Sandboxes a company holds at once (PM_SANDBOXES_PER_COMPANY, default MAX_SANDBOXES; 0: none)."""
    return max(0, int(SANDBOXES_PER_COMPANY.value()))


def sandbox_change_limit() -> tuple[int, int]:
    return _per_window(SANDBOX_CHANGE_LIMIT_SETTING, SANDBOX_CHANGE_LIMIT, SANDBOX_CHANGE_WINDOW_SECONDS)


# Where the rest of the settings come from (each read here only: no other module reads the
# environment; tests/contract/test_settings.py checks).
UPLOAD_BUCKET = _setting("PM_UPLOAD_BUCKET", "The S3 bucket of documents, uploads and exports.", "pm-local-uploads")
AWS_ENDPOINT_URL = _setting(
    "AWS_ENDPOINT_URL", "The one endpoint of every AWS service locally (moto's server); unset in AWS."
)
ALLOW_LOOPBACK_WEBHOOKS = _setting(
    "PM_ALLOW_LOOPBACK_WEBHOOKS", "`1`: webhooks may point at 127.0.0.1 and plain http (the local stage)."
)
SEARCH_BACKEND = _setting(
    "PM_SEARCH_BACKEND", "Where tool and docs search run: `embedded` (in the function) or `opensearch`.", "embedded"
)
ENTITY_SEARCH_ENGINE = _setting(
    "PM_ENTITY_SEARCH_ENGINE",
    "The entity search's index: `sqlite` (embedded; `make serve`, the tests), `opensearch` (the stack's domain) or "
    "`off` (a stack without a domain: a search answers 503).",
    "sqlite",
)
OPENSEARCH_ENDPOINT = _setting(
    "PM_OPENSEARCH_ENDPOINT", "The OpenSearch endpoint of the `opensearch` search backend and entity index."
)
OPENSEARCH_SERVICE = _setting(
    "PM_OPENSEARCH_SERVICE", "`es` for an OpenSearch domain, `aoss` for OpenSearch Serverless (SigV4's service).", "es"
)
OPENSEARCH_PREFIX = _setting("PM_OPENSEARCH_PREFIX", "The prefix of the search indexes' names.", "pm")
MCP_ALLOWED_HOSTS = _setting(
    "PM_MCP_ALLOWED_HOSTS",
    "Host names the MCP endpoint answers, comma-separated; `*` turns the check off; unset: loopback only.",
)
STAGE = _setting("PM_STAGE", "The stage: `local`, `dev`, `prod`.", "local")
POWERTOOLS_METRICS_DISABLED = _setting(
    "POWERTOOLS_METRICS_DISABLED", "A true value turns metrics off, a false one on (default: on in Lambda only)."
)
POWERTOOLS_DEV = _setting("POWERTOOLS_DEV", "A true value turns metrics off (Powertools' development mode).")
POWERTOOLS_TRACE_DISABLED = _setting("POWERTOOLS_TRACE_DISABLED", "A true value turns X-Ray tracing off.")
POWERTOOLS_METRICS_NAMESPACE = _setting(
    "POWERTOOLS_METRICS_NAMESPACE", "The CloudWatch namespace of the metrics.", shown="observability.DEFAULT_NAMESPACE"
)
AWS_LAMBDA_FUNCTION_NAME = _setting("AWS_LAMBDA_FUNCTION_NAME", "Set by Lambda: the code runs in a function.")
LAMBDA_TASK_ROOT = _setting("LAMBDA_TASK_ROOT", "Set by Lambda's runtime: tracing is on there.")
AWS_SAM_LOCAL = _setting("AWS_SAM_LOCAL", "Set by SAM local: an emulation of Lambda, without tracing.")
AWS_CHALICE_CLI_MODE = _setting(
    "AWS_CHALICE_CLI_MODE", "Set by the chalice CLI: an emulation of Lambda, without tracing."
)
# The event sources of the workers (app.py): the merge template wires the real ones; these
# placeholders let `chalice package` and the local stack build the app.
TABLE_STREAM_ARN = _setting(
    "PM_TABLE_STREAM_ARN",
    "The table's stream, the change worker's event source (the template wires it).",
    "arn:aws:dynamodb:eu-central-1:000000000000:table/pm-local/stream/local",
)
DELIVERY_QUEUE_ARN = _setting(
    "PM_DELIVERY_QUEUE_ARN",
    "The delivery queue, the webhook sender's event source.",
    "arn:aws:sqs:eu-central-1:000000000000:pm-local-deliveries.fifo",
)
EXPORT_QUEUE_ARN = _setting(
    "PM_EXPORT_QUEUE_ARN",
    "The export queue, the export worker's event source.",
    "arn:aws:sqs:eu-central-1:000000000000:pm-local-exports",
)
SANDBOX_QUEUE_ARN = _setting(
    "PM_SANDBOX_QUEUE_ARN",
    "The sandbox queue, the sandbox worker's event source.",
    "arn:aws:sqs:eu-central-1:000000000000:pm-local-sandboxes",
)
UPLOAD_QUEUE_ARN = _setting(
    "PM_UPLOAD_QUEUE_ARN",
    "The upload queue, the upload worker's event source.",
    "arn:aws:sqs:eu-central-1:000000000000:pm-local-uploads",
)
PORT = _setting("PM_PORT", "The port of `make serve`.", "8000")
DEMO = _setting("PM_DEMO", "`1`: `make serve` with a sandbox of the demo company (`make demo`).")
LOCAL_TRANSPORT = _setting(
    "PM_LOCAL_TRANSPORT",
    "How the local stack's own AWS calls reach moto: `direct` (DynamoDB, its stream and SQS handed to moto's "
    "handler unserialised, the rest through moto's WSGI application) or `wsgi` (every call serialised and "
    "parsed by moto as over HTTP, the direct path off; CI runs the cross-check on it).",
    "direct",
)
DEMO_SIZE = _setting(
    "PM_DEMO_SIZE",
    "How much demo company a sandbox is planted with (`make demo`, the console, `pmctl sandbox create` and "
    "reset): `full` (5 objects, 200 units, the promised totals) or `small` (one object with a few of each "
    "entity type, for tests).",
    "full",
)
STATE_DIR = _setting("PM_STATE_DIR", "Where `make serve` keeps its data.", shown="`.local/` in the repository")
MAIL_SENDER = _setting(
    "PM_MAIL_SENDER",
    "The From address of the service's mail, an identity verified in Amazon SES; unset, mail goes to the "
    "outbox folder.",
)
DOCS_BUILD = _setting(
    "PM_DOCS_BUILD",
    "`0`: `make serve` does not build the docs site when it is missing or stale (the tests' servers); "
    "/docs answers what build/site holds.",
    "1",
)
PRINT_OUTBOX = _setting("PM_PRINT_OUTBOX", "`1`: `make serve` prints each mail as it lands in the outbox.")
OUTBOX_DIR = _setting("PM_OUTBOX_DIR", "Where mail lands without SES.", shown="`outbox/` in PM_STATE_DIR")
PUBLIC_URL = _setting(
    "PM_PUBLIC_URL",
    "The service's address as people reach it, for links in mail.",
    shown="`http://127.0.0.1:<PM_PORT>`",
)


def upload_bucket() -> str:
    return UPLOAD_BUCKET.value()


def aws_endpoint_url() -> str | None:
    """The one endpoint of every AWS service locally (moto's server); None in AWS."""
    return AWS_ENDPOINT_URL.value() or None


def allow_loopback_webhooks() -> bool:
    """The local stage lets webhooks point at 127.0.0.1 (and plain http)."""
    return ALLOW_LOOPBACK_WEBHOOKS.value() == "1"


def search_backend() -> str:
    return SEARCH_BACKEND.value()


def entity_search_engine() -> str:
    return ENTITY_SEARCH_ENGINE.value()


def opensearch_endpoint() -> str:
    return OPENSEARCH_ENDPOINT.value()


def opensearch_service() -> str:
    """`es` for a domain, `aoss` for OpenSearch Serverless (SigV4's service name)."""
    return OPENSEARCH_SERVICE.value()


def opensearch_prefix() -> str:
    return OPENSEARCH_PREFIX.value()


def mcp_allowed_hosts() -> str:
    """Host names the MCP endpoint answers, comma-separated; `*` turns the check off; empty: loopback."""
    return MCP_ALLOWED_HOSTS.value()


def stage() -> str:
    return STAGE.value() or STAGE.default


def flag(name: str) -> str | None:
    """A switch of the Lambda runtime or Powertools (POWERTOOLS_METRICS_DISABLED, ...), as set
    (a declared setting's name)."""
    return os.environ.get(SETTINGS[name].variable)


def in_lambda() -> bool:
    return bool(AWS_LAMBDA_FUNCTION_NAME.value())


def lambda_task_root() -> bool:
    """Running in Lambda's runtime and not in an emulation of it (SAM local, chalice local)."""
    local = AWS_SAM_LOCAL.value() or AWS_CHALICE_CLI_MODE.value()
    return bool(LAMBDA_TASK_ROOT.value()) and not local


def metrics_namespace(default: str) -> str:
    return POWERTOOLS_METRICS_NAMESPACE.value() or default


def table_stream_arn() -> str:
    return TABLE_STREAM_ARN.value()


def delivery_queue_arn() -> str:
    return DELIVERY_QUEUE_ARN.value()


def export_queue_arn() -> str:
    return EXPORT_QUEUE_ARN.value()


def sandbox_queue_arn() -> str:
    return SANDBOX_QUEUE_ARN.value()


def upload_queue_arn() -> str:
    return UPLOAD_QUEUE_ARN.value()


def local_port() -> int:
    return int(PORT.value())


def local_demo() -> bool:
    """`make demo` (PM_DEMO=1): `make serve` with a sandbox of the demo company (chalicelib/local/demo.py)."""
    return DEMO.value() == "1"


LOCAL_TRANSPORTS = ("direct", "wsgi")


def local_transport() -> str:
    """`direct` unless PM_LOCAL_TRANSPORT says `wsgi` (chalicelib/local/moto_transport.py)."""
    transport = LOCAL_TRANSPORT.value().strip().lower() or LOCAL_TRANSPORT.default
    if transport not in LOCAL_TRANSPORTS:
        raise ValueError(f"PM_LOCAL_TRANSPORT is {transport!r}: one of {', '.join(LOCAL_TRANSPORTS)}")
    return transport


DEMO_SIZES = ("full", "small")


def demo_size() -> str:
    """The size of the demo company a sandbox is planted with (sandbox/demo.py): `full` unless
    PM_DEMO_SIZE says `small` (the tests: a sandbox planted in a second, not a minute)."""
    size = DEMO_SIZE.value().strip().lower() or DEMO_SIZE.default
    if size not in DEMO_SIZES:
        raise ValueError(f"PM_DEMO_SIZE is {size!r}: one of {', '.join(DEMO_SIZES)}")
    return size


def state_dir(default: str) -> str:
    """Where `make serve` keeps its data (and stack.json for pmctl --local)."""
    return STATE_DIR.value(default)


def docs_build_at_start() -> bool:
    """`make serve` builds the docs site (build/site) at start when it is missing or stale."""
    return DOCS_BUILD.value() != "0"


def mail_sender() -> str | None:
    """The From address of the service's mail, an identity verified in Amazon SES: set in the
    cloud (the template's MailSender), unset locally, where mail goes to the outbox folder."""
    return MAIL_SENDER.value() or None


def print_outbox() -> bool:
    """make serve prints each mail as it lands in the outbox (the developer's mailbox)."""
    return PRINT_OUTBOX.value() == "1"


def outbox_dir_setting() -> str | None:
    return OUTBOX_DIR.value() or None


def outbox_dir() -> str:
    """Where mail lands without SES (the local stage): one JSON file per message."""
    return outbox_dir_setting() or os.path.join(state_dir(".local"), "outbox")


def public_url() -> str:
    """The service's address as people reach it, for links in mail. Never taken from a
    request's Host header, which a caller chooses (links to an attacker's host)."""
    return (PUBLIC_URL.value() or f"http://127.0.0.1:{local_port()}").rstrip("/")


# Every limit above with what it bounds, for the docs' configuration page (generate/reference): each
# constant of this module that is a number is named here (tests/contract/test_docs_site.py checks).
LIMITS: dict[str, str] = {
    "MAX_BODY_BYTES": "Largest JSON body a command accepts (bytes).",
    "MAX_ALIAS_ENTRIES": "Entries one aliases.upsert call may carry.",
    "MAX_UPSERT_ITEMS": "Items one `<list>.upsert` call may carry.",
    "MAX_GRANTS_PER_MEMBER": "Agents one person connects by OAuth at once (live grants they approved).",
    "EXPORT_WEIGHT": "Calls one exports.create counts as against the rate limits.",
    "EXPORT_KEEP_DAYS": "Days an export's file is kept.",
    "MAX_RUNNING_EXPORTS": "Exports of a tenant that run at once (PM_EXPORTS_PER_TENANT); one per key or integration.",
    "EXPORT_LEASE_SECONDS": "Seconds a running export's worker holds its place without renewing it (a dead worker's "
    "place frees after this).",
    "KEY_CACHE_SECONDS": "Seconds an authenticated key stays cached in a warm function before it is read again.",
    "LAST_USED_RESOLUTION_SECONDS": "A key's `lastUsedAt` is written at most this often (seconds).",
    "IDEMPOTENCY_TTL_SECONDS": "Seconds an `Idempotency-Key` and its answer are kept.",
    "IDEMPOTENCY_RUNNING_SECONDS": "Seconds a claimed `Idempotency-Key` without an answer counts as running.",
    "TRIAL_DAYS": "Days of a sign-up's free trial.",
    "DEFAULT_KEY_DAYS": "Days until a key expires when its creator names no expiry.",
    "MAX_KEY_DAYS": "Latest expiry of a key, in days after its creation.",
    "MAX_LIVE_KEYS": "Live keys a tenant holds at most (PM_MAX_KEYS_PER_TENANT).",
    "REQUEST_LOG_DAYS": "Days the per-key request log (apikeys.requests.list) keeps a request.",
    "USAGE_MAX_ENTRIES": "A key's request log entries one apikeys.usage reads at most (the newest).",
    "COUNT_LIMIT": "Index entries a list's `total` counts at most; past it `pagination.capped`.",
    "AUDIT_OPERATION_SCAN": "Audit records the `operation` filter of audit.list reads.",
    "ALIAS_REACH_SCAN": "Alias entries aliases.list reads for a key limited to objects; past it `pagination.capped`.",
    "REVERT_RECORD_LIMIT": "Audit records one audit.revert by filter undoes.",
    "MAX_WEBHOOKS": "Webhooks a tenant holds at most.",
    "WEBHOOK_LOG_DAYS": "Days a delivery's log entry is kept.",
    "WEBHOOK_SECRET_OVERLAP_HOURS": "Hours a rotated signing secret keeps signing beside the new one.",
    "WEBHOOK_RESPONSE_BYTES": "Bytes of a receiver's answer the delivery log keeps per attempt.",
    "WEBHOOK_ATTEMPTS_KEPT": "Attempts a delivery's log keeps (the last ones).",
    "WEBHOOK_HEALTH_WINDOW": "Settled deliveries the health badge's success rate is taken over.",
    "RECOVERIES_PER_DAY": "Recoveries (webhooks.deliveries.recover) of one webhook per day (UTC).",
    "SIGNUP_LIMIT": "Sign-ups (and other anonymous commands) per source address and window.",
    "SIGNUP_WINDOW_SECONDS": "The sign-up limit's window (seconds).",
    "OAUTH_LIMIT": "OAuth authorize and token requests (each on its own) per source address and window.",
    "OAUTH_WINDOW_SECONDS": "The OAuth limit's window (seconds).",
    "SIGNUP_CODE_MINUTES": "Minutes the code of a sign-up's confirmation mail lasts.",
    "SIGNIN_CODE_MINUTES": "Minutes a sign-in code lasts.",
    "CODE_ATTEMPTS": "Tries a mailed code allows.",
    "ADDRESS_LIMIT": "Mail requests to one address per requester and window.",
    "ADDRESS_TOTAL_LIMIT": "Mail requests to one address across requesters and window.",
    "ADDRESS_WINDOW_SECONDS": "The window of the address limits (seconds).",
    "INVITE_LIMIT": "Invitations a company sends per window.",
    "INVITE_WINDOW_SECONDS": "The invitation limit's window (seconds).",
    "MAX_SANDBOXES": "Sandboxes a company holds at once (PM_SANDBOXES_PER_COMPANY).",
    "SANDBOX_CHANGE_LIMIT": "Sandbox creations and resets a company makes per window (PM_SANDBOX_CHANGE_LIMIT).",
    "SANDBOX_CHANGE_WINDOW_SECONDS": "The sandbox change limit's window (seconds).",
}
