"""Settings read from the environment (set per stage in .chalice/config.json).

Read on use, not at import, so tests and the local stack can set them first.
"""

from __future__ import annotations

import os

# Largest JSON body a command accepts. API Gateway allows 10 MB and Lambda 6 MB;
# entity payloads are a few KB, so 1 MiB leaves room while keeping memory bounded.
MAX_BODY_BYTES = 1024 * 1024

# Entries one aliases.upsert call may carry: each entry writes two items and a
# DynamoDB transaction holds at most 100.
MAX_ALIAS_ENTRIES = 50
# Items one `<list>.upsert` call may carry (resources/upserts.py): each is its own write, so a call
# of 500 stays within the API function's time and the 1 MB body.
MAX_UPSERT_ITEMS = 500
# Exports (exports.create): a file is kept this long (the bucket's lifecycle deletes it; the
# export's record expires with it).
EXPORT_KEEP_DAYS = 7

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


def search_model_bucket() -> str | None:
    """The bucket the MCP function fetches the search models from when its bundle lacks them
    (search/model_files.py; the template sets it from the SearchModelBucket parameter)."""
    return os.environ.get("PM_SEARCH_MODEL_BUCKET") or None


def request_log_via_logs() -> bool:
    """In the cloud (PM_REQUEST_LOG=logs, set by the template on the HTTP functions) a request's
    log entry is printed for the WriteRequestLogs function to store in batches; locally it is
    written to the table at once (store/requests.py)."""
    return os.environ.get("PM_REQUEST_LOG", "table") == "logs"


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


def sales_contact() -> str:
    """Where a tenant whose trial ended turns to continue (named in the 403)."""
    return os.environ.get("PM_SALES_CONTACT", "sales@propertymanagement.example")


def table_name() -> str:
    return os.environ.get("PM_TABLE_NAME", "pm-local")


def region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "eu-central-1"


def key_environment() -> str:
    """`live` or `test`: the middle part of issued keys (pm_live_..., pm_test_...)."""
    return "live" if os.environ.get("PM_KEY_ENVIRONMENT", "test") == "live" else "test"


def upload_queue_url() -> str | None:
    return os.environ.get("PM_UPLOAD_QUEUE_URL") or None


def export_queue_url() -> str | None:
    """Where exports.create queues an export for the export worker (exports/worker.py)."""
    return os.environ.get("PM_EXPORT_QUEUE_URL") or None


def sandbox_queue_url() -> str | None:
    """Where the console queues a sandbox's planting or reset for the sandbox worker (sandbox/worker.py)."""
    return os.environ.get("PM_SANDBOX_QUEUE_URL") or None


def upload_dead_letter_url() -> str | None:
    """Upload notices that kept failing wait here; `status` reports them."""
    return os.environ.get("PM_UPLOAD_DLQ_URL") or None


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


def delivery_queue_url() -> str | None:
    """The FIFO queue of webhook deliveries (events/delivery_queue.py)."""
    return os.environ.get("PM_DELIVERY_QUEUE_URL") or None


def delivery_dead_letter_url() -> str | None:
    """Delivery messages the worker kept failing on (not receivers failing: those settle)."""
    return os.environ.get("PM_DELIVERY_DLQ_URL") or None


def stream_dead_letter_url() -> str | None:
    """In the cloud, change-stream batches that kept failing are described on this queue
    (the stream's on-failure destination); locally they wait in the table (events/deadletters.py)."""
    return os.environ.get("PM_STREAM_DLQ_URL") or None


def webhook_retry_scale() -> float:
    """Tests shrink the retry schedule (PM_WEBHOOK_RETRY_SCALE=0.001: 5 s become 5 ms)."""
    return float(os.environ.get("PM_WEBHOOK_RETRY_SCALE", "1"))


def throttle_default(rate: float, burst: int) -> tuple[float, int]:
    """Every key's overall limit unless its tenant sets one: PM_THROTTLE_RATE calls a second,
    PM_THROTTLE_BURST at once (chalicelib/throttle.py holds the documented defaults)."""
    return float(os.environ.get("PM_THROTTLE_RATE", rate)), int(os.environ.get("PM_THROTTLE_BURST", burst))


def tenant_throttle_default(rate: float, burst: int) -> tuple[float, int]:
    """Every tenant's limit over all its keys together unless the operator sets one:
    PM_TENANT_THROTTLE_RATE calls a second, PM_TENANT_THROTTLE_BURST at once (0 turns it off)."""
    return float(os.environ.get("PM_TENANT_THROTTLE_RATE", rate)), int(
        os.environ.get("PM_TENANT_THROTTLE_BURST", burst)
    )


def max_live_keys() -> int:
    """The cap of a tenant's live keys (PM_MAX_KEYS_PER_TENANT, default MAX_LIVE_KEYS); at least
    1, the sign-up's first key."""
    return max(1, int(os.environ.get("PM_MAX_KEYS_PER_TENANT", MAX_LIVE_KEYS)))


# Sign-ups (and any other anonymous command) per source address: SIGNUP_LIMIT per
# SIGNUP_WINDOW_SECONDS, unless PM_SIGNUP_LIMIT reads "<count>/<seconds>" ("0/1": off).
SIGNUP_LIMIT = 10
SIGNUP_WINDOW_SECONDS = 3600


def _per_window(variable: str, count: int, seconds: int) -> tuple[int, int]:
    """A limit of `count` per `seconds`, unless `variable` reads "<count>/<seconds>"."""
    spec = os.environ.get(variable)
    if not spec:
        return count, seconds
    given, _, window = spec.partition("/")
    return int(given), max(1, int(window or seconds))


def signup_limit() -> tuple[int, int]:
    return _per_window("PM_SIGNUP_LIMIT", SIGNUP_LIMIT, SIGNUP_WINDOW_SECONDS)


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


def address_limit() -> tuple[int, int]:
    return _per_window("PM_ADDRESS_LIMIT", ADDRESS_LIMIT, ADDRESS_WINDOW_SECONDS)


def address_total_limit() -> tuple[int, int]:
    return _per_window("PM_ADDRESS_TOTAL_LIMIT", ADDRESS_TOTAL_LIMIT, ADDRESS_WINDOW_SECONDS)


# A company sends at most INVITE_LIMIT invitations per INVITE_WINDOW_SECONDS (PM_INVITE_LIMIT
# "<count>/<seconds>"): its name is in each mail, so invitations must not become a mailing list.
INVITE_LIMIT = 20
INVITE_WINDOW_SECONDS = 24 * 3600


def invite_limit() -> tuple[int, int]:
    return _per_window("PM_INVITE_LIMIT", INVITE_LIMIT, INVITE_WINDOW_SECONDS)


# Where the rest of the settings come from (each read here only: no other module reads the
# environment; tests/contract/test_settings.py checks).


def upload_bucket() -> str:
    return os.environ.get("PM_UPLOAD_BUCKET", "pm-local-uploads")


def aws_endpoint_url() -> str | None:
    """The one endpoint of every AWS service locally (moto's server); None in AWS."""
    return os.environ.get("AWS_ENDPOINT_URL") or None


def allow_loopback_webhooks() -> bool:
    """The local stage lets webhooks point at 127.0.0.1 (and plain http)."""
    return os.environ.get("PM_ALLOW_LOOPBACK_WEBHOOKS") == "1"


def search_backend() -> str:
    return os.environ.get("PM_SEARCH_BACKEND", "embedded")


def opensearch_endpoint() -> str:
    return os.environ.get("PM_OPENSEARCH_ENDPOINT", "")


def opensearch_service() -> str:
    """`es` for a domain, `aoss` for OpenSearch Serverless (SigV4's service name)."""
    return os.environ.get("PM_OPENSEARCH_SERVICE", "es")


def opensearch_prefix() -> str:
    return os.environ.get("PM_OPENSEARCH_PREFIX", "pm")


def mcp_allowed_hosts() -> str:
    """Host names the MCP endpoint answers, comma-separated; `*` turns the check off; empty: loopback."""
    return os.environ.get("PM_MCP_ALLOWED_HOSTS", "")


def stage() -> str:
    return os.environ.get("PM_STAGE") or "local"


def flag(name: str) -> str | None:
    """A switch of the Lambda runtime or Powertools (POWERTOOLS_METRICS_DISABLED, ...), as set."""
    return os.environ.get(name)


def in_lambda() -> bool:
    return bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))


def lambda_task_root() -> bool:
    """Running in Lambda's runtime and not in an emulation of it (SAM local, chalice local)."""
    local = os.environ.get("AWS_SAM_LOCAL") or os.environ.get("AWS_CHALICE_CLI_MODE")
    return bool(os.environ.get("LAMBDA_TASK_ROOT")) and not local


def metrics_namespace(default: str) -> str:
    return os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or default


# The event sources of the workers (app.py): the merge template wires the real ones; these
# placeholders let `chalice package` and the local stack build the app.
def table_stream_arn() -> str:
    return os.environ.get(
        "PM_TABLE_STREAM_ARN", "arn:aws:dynamodb:eu-central-1:000000000000:table/pm-local/stream/local"
    )


def delivery_queue_arn() -> str:
    return os.environ.get("PM_DELIVERY_QUEUE_ARN", "arn:aws:sqs:eu-central-1:000000000000:pm-local-deliveries.fifo")


def export_queue_arn() -> str:
    return os.environ.get("PM_EXPORT_QUEUE_ARN", "arn:aws:sqs:eu-central-1:000000000000:pm-local-exports")


def sandbox_queue_arn() -> str:
    return os.environ.get("PM_SANDBOX_QUEUE_ARN", "arn:aws:sqs:eu-central-1:000000000000:pm-local-sandboxes")


def upload_queue_arn() -> str:
    return os.environ.get("PM_UPLOAD_QUEUE_ARN", "arn:aws:sqs:eu-central-1:000000000000:pm-local-uploads")


def local_port() -> int:
    return int(os.environ.get("PM_PORT", "8000"))


def local_demo() -> bool:
    """`make demo` (PM_DEMO=1): `make serve` with a sandbox of the demo company (chalicelib/local/demo.py)."""
    return os.environ.get("PM_DEMO") == "1"


def state_dir(default: str) -> str:
    """Where `make serve` keeps its data (and stack.json for pmctl --local)."""
    return os.environ.get("PM_STATE_DIR", default)


def mail_sender() -> str | None:
    """The From address of the service's mail, an identity verified in Amazon SES: set in the
    cloud (the template's MailSender), unset locally, where mail goes to the outbox folder."""
    return os.environ.get("PM_MAIL_SENDER") or None


def print_outbox() -> bool:
    """make serve prints each mail as it lands in the outbox (the developer's mailbox)."""
    return os.environ.get("PM_PRINT_OUTBOX") == "1"


def outbox_dir_setting() -> str | None:
    return os.environ.get("PM_OUTBOX_DIR") or None


def outbox_dir() -> str:
    """Where mail lands without SES (the local stage): one JSON file per message."""
    return outbox_dir_setting() or os.path.join(state_dir(".local"), "outbox")


def public_url() -> str:
    """The service's address as people reach it, for links in mail. Never taken from a
    request's Host header, which a caller chooses (links to an attacker's host)."""
    return (os.environ.get("PM_PUBLIC_URL") or f"http://127.0.0.1:{local_port()}").rstrip("/")
