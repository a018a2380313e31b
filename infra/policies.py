"""Least-privilege IAM: one policy per Lambda function, exactly the actions and resources its
code uses, referencing the template's resources (no literal ARNs, account ids or regions).

With `autogen_policy: false` chalice makes one role per function of app.py (`<Function>Role`, below)
whose inline policy is .chalice/policy-replaced-by-merge-template.json: a deny-all
placeholder, because chalice insists on a policy file and cannot write CloudFormation
references. `resources()` replaces each role's `Policies` in the merge template (the deep
merge replaces lists whole), so the placeholder never reaches a stack; a `chalice deploy`
without the merge template would get roles that can do nothing. The MCP function is not
chalice's (infra/resources.py): its role is defined here whole.

tests/contract/test_iam_policy.py checks these against the code: every boto3 / pynamodb /
OpenSearch call a function can reach is granted here on the right resource, and nothing is
granted that no reachable call (or the function's event source, logs and traces) needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Chalice's logical ids: function -> its role (chalice names the role after the function's
# Python name, `api_handler_role` -> ApiHandlerRole).
CHALICE_ROLES = {
    "APIHandler": "ApiHandlerRole",
    "OnTableChange": "OnTableChangeRole",
    "DeliverWebhooks": "DeliverWebhooksRole",
    "OnUpload": "OnUploadRole",
    "SweepUploads": "SweepUploadsRole",
    "WriteRequestLogs": "WriteRequestLogsRole",
    "RunExports": "RunExportsRole",
    "RunSandboxes": "RunSandboxesRole",
}
MCP_FUNCTION = "McpHandler"
ROLES = {**CHALICE_ROLES, MCP_FUNCTION: f"{MCP_FUNCTION}Role"}


def _sub(text: str) -> dict[str, Any]:
    return {"Fn::Sub": text}


def _arn(logical_id: str) -> dict[str, Any]:
    return {"Fn::GetAtt": [logical_id, "Arn"]}


TABLE = _arn("Table")
TABLE_INDEXES = _sub("${Table.Arn}/index/*")  # gsi1..gsi4
TABLE_STREAM = {"Fn::GetAtt": ["Table", "StreamArn"]}
TABLE_STREAMS = _sub("${Table.Arn}/stream/*")  # ListStreams names the table's streams, not one
UPLOAD_BUCKET = _arn("UploadBucket")
UPLOAD_OBJECTS = _sub("${UploadBucket.Arn}/*")
UPLOAD_QUEUE = _arn("UploadQueue")
UPLOAD_DEAD_LETTER_QUEUE = _arn("UploadDeadLetterQueue")
DELIVERY_QUEUE = _arn("DeliveryQueue")
DELIVERY_DEAD_LETTER_QUEUE = _arn("DeliveryDeadLetterQueue")
CHANGE_STREAM_FAILURES = _arn("ChangeStreamFailureQueue")
REQUEST_LOG_FAILURES = _arn("RequestLogFailureQueue")
EXPORT_QUEUE = _arn("ExportQueue")
# an export's files (chalicelib/exports/sink.py export_key)
EXPORT_OBJECTS = _sub("${UploadBucket.Arn}/exports/*")
SANDBOX_QUEUE = _arn("SandboxQueue")
# a tenant's documents' files (uploads/files.py direct_key: <tenant>/documents/<id>) and bulk uploads
# (upload_key: <tenant>/uploads/<batch>/<id>); tenant ids start ten_ (store/keys.py TENANT_ID_PREFIX)
DOCUMENT_OBJECTS = _sub("${UploadBucket.Arn}/ten_*/documents/*")
BULK_UPLOAD_OBJECTS = _sub("${UploadBucket.Arn}/ten_*/uploads/*")
# The HTTP functions log to log groups of the stack (infra/resources.py HTTP_LOG_GROUPS; their
# ARN ends in `:*`, which covers the streams)
HTTP_LOG_GROUPS = {"APIHandler": "ApiLogGroup", MCP_FUNCTION: "McpLogGroup"}
# every queue whose depth `status` reports (resources/platform.py)
QUEUES = (UPLOAD_QUEUE, UPLOAD_DEAD_LETTER_QUEUE, DELIVERY_QUEUE, DELIVERY_DEAD_LETTER_QUEUE, CHANGE_STREAM_FAILURES)
# The indexes the MCP function searches (PM_OPENSEARCH_PREFIX, default "pm"; search/service.py). Only
# the search and count paths: indexing (PUT, _bulk) runs at deploy time from the operator's
# machine (infra/after_deploy.py), never from a function.
SEARCH_PREFIX = "pm"
SEARCH_PATHS = [
    _sub(f"${{SearchDomain.Arn}}/{SEARCH_PREFIX}-tools/_search"),
    _sub(f"${{SearchDomain.Arn}}/{SEARCH_PREFIX}-docs/_search"),
]
COUNT_PATHS = [_sub(f"${{SearchDomain.Arn}}/{SEARCH_PREFIX}-tools/_count")]
# The entity index (entity_search/engine.py index_name): the HTTP functions search it, the stream's
# function creates it and writes it (entity_search/opensearch_engine.py)
ENTITY_INDEX = _sub(f"${{SearchDomain.Arn}}/{SEARCH_PREFIX}-entities")
ENTITY_SEARCH = _sub(f"${{SearchDomain.Arn}}/{SEARCH_PREFIX}-entities/_search")
ENTITY_BULK = _sub(f"${{SearchDomain.Arn}}/{SEARCH_PREFIX}-entities/_bulk")
# The sender's SES identity (the MailSender parameter; infra/resources.py makes it the stack's
# MailIdentity unless CreateMailIdentity=false), named by the parameter so it holds either way.
MAIL_IDENTITY = _sub("arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${MailSender}")
# The search models the MCP function fetches on its first search (chalicelib/search/model_files.py),
# in the bucket `make deploy` copies them to (the SearchModelBucket parameter)
SEARCH_MODELS = _sub("arn:${AWS::Partition}:s3:::${SearchModelBucket}/search-models/*")
ANY = "*"  # only for actions without resource-level permissions (X-Ray)


def log_group(function: str) -> dict[str, Any]:
    """The function's own log group and its streams: the stack's group of an HTTP function, else
    Lambda's default, /aws/lambda/<function name>, where CloudFormation names a function
    <stack>-<LogicalId>-<suffix>; a reference to the function itself would be circular
    (function -> role -> policy -> function)."""
    if function in HTTP_LOG_GROUPS:
        return _arn(HTTP_LOG_GROUPS[function])
    return _sub(
        f"arn:${{AWS::Partition}}:logs:${{AWS::Region}}:${{AWS::AccountId}}:log-group:/aws/lambda/${{AWS::StackName}}-{function}-*"
    )


@dataclass(frozen=True)
class Grant:
    sid: str
    actions: tuple[str, ...]
    resources: tuple[Any, ...]
    condition: str | None = None  # a template condition the statement exists under

    def statement(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "Sid": self.sid,
            "Effect": "Allow",
            "Action": list(self.actions),
            "Resource": list(self.resources),
        }
        return {"Fn::If": [self.condition, found, {"Ref": "AWS::NoValue"}]} if self.condition else found


# What the functions' code calls (tests/contract/aws_calls.py finds the calls).

# What the operations call: the REST function runs them, and the MCP function runs them too
# (meta.tool.execute, pipelines).
OPERATIONS: list[Grant] = [
    # store/entities.py, keys.py, key_lookups.py, aliases.py, merges.py, idempotency.py,
    # requests.py, integrations.py (Item.get, item.save/update/delete, Transaction: put, update,
    # delete, condition check), entities.fetch_many and store/uploads.py (batch_get, batch_write),
    # requests.py / deadletters.py / deliveries.py / audit_records.py / refs.py (Item.query,
    # Item.count), store/entities.py table_status for `status` (Item.describe_table)
    Grant(
        "TableReadWrite",
        (
            "dynamodb:GetItem",
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
            "dynamodb:ConditionCheckItem",
            "dynamodb:BatchGetItem",
            "dynamodb:BatchWriteItem",
            "dynamodb:Query",
            "dynamodb:DescribeTable",
        ),
        (TABLE,),
    ),
    # lists, filters and lookups: INDEXES[n].query in store/entities.py, aliases.py,
    # integrations.py, events/audit.py
    Grant("TableIndexes", ("dynamodb:Query",), (TABLE_INDEXES,)),
    # uploads/files.py: put (direct uploads), presigned_post (bulk uploads: S3 checks the
    # signer may PutObject), download_url (presigned GET of the registered version), delete
    # (a direct upload refused after it was stored, with every version)
    Grant(
        "UploadObjects",
        ("s3:PutObject", "s3:GetObject", "s3:GetObjectVersion", "s3:DeleteObject", "s3:DeleteObjectVersion"),
        (UPLOAD_OBJECTS,),
    ),
    # uploads/files.py versions(): the versions files.delete removes
    Grant("UploadVersions", ("s3:ListBucketVersions",), (UPLOAD_BUCKET,)),
    # resources/platform.py status: messages waiting in the queues and their dead letters
    Grant("QueueDepths", ("sqs:GetQueueAttributes",), QUEUES),
    # webhooks.deliveries.retry (events/deliveries.py retry_now): wake the waiting message
    # (delivery_queue.wake) or queue a new one (delivery_queue.enqueue)
    Grant("DeliveryRetry", ("sqs:SendMessage", "sqs:ChangeMessageVisibility"), (DELIVERY_QUEUE,)),
    # exports.create (exports/queue.py enqueue): the export's message for the export worker
    Grant("ExportRequests", ("sqs:SendMessage",), (EXPORT_QUEUE,)),
    # search (entity_search/find.py -> opensearch_engine.py search): POST pm-entities/_search
    Grant("EntitySearch", ("es:ESHttpPost",), (ENTITY_SEARCH,), condition="UseOpenSearch"),
]

CODE: dict[str, list[Grant]] = {
    "APIHandler": [
        *OPERATIONS,
        # mail.py send (_send_ses: sesv2 send_email from MailSender): resources/platform.py signup's
        # confirmation code, the console's sign-in codes and invitations (console/pages/auth_pages.py
        # signin, members.py invite). Only the API function serves these: the MCP function's tools
        # are the v2 operations that need a key (tests/contract/test_iam_policy.py NEVER)
        Grant("MailSend", ("ses:SendEmail",), (MAIL_IDENTITY,)),
        # sandbox/jobs.py enqueue: the console's sandbox create and reset queue the planting or reset
        # for the sandbox worker (infra/resources.py SANDBOX_JOB_FUNCTIONS)
        Grant("SandboxJobs", ("sqs:SendMessage",), (SANDBOX_QUEUE,)),
    ],
    MCP_FUNCTION: [
        *OPERATIONS,
        # search/opensearch_backend.py (SearchBackend=opensearch): POST <index>/_search for tool,
        # docs and browse searches, POST pm-tools/_count past the last hybrid page
        Grant("SearchRead", ("es:ESHttpPost",), (*SEARCH_PATHS, *COUNT_PATHS), condition="UseOpenSearch"),
        # search/model_files.py: the models' files, downloaded once per instance (download_file:
        # GetObject, ranged; its HeadObject needs GetObject as well)
        Grant("SearchModels", ("s3:GetObject",), (SEARCH_MODELS,)),
    ],
    "OnTableChange": [
        # events/audit.py record_many (store/audit_records.py write_records: batch_write),
        # events/deliveries.py fan_out (fetch_many of the tenant's webhooks: batch_get; a delivery
        # per subscriber: store/deliveries.py create_delivery, a conditional save)
        Grant("AuditAndDeliveries", ("dynamodb:BatchWriteItem", "dynamodb:BatchGetItem", "dynamodb:PutItem"), (TABLE,)),
        # events/feed.py append (store/feed.py: the feed's head read, then one transaction moves it
        # and puts the entries and their audit records)
        Grant("ChangeFeed", ("dynamodb:UpdateItem",), (TABLE,)),
        # events/deliveries.py fan_out: each delivery's message (delivery_queue.enqueue)
        Grant("DeliveryMessages", ("sqs:SendMessage",), (DELIVERY_QUEUE,)),
        # events/subscriptions.py subscribers: the tenant's webhooks (gsi1)
        Grant("WebhookIndex", ("dynamodb:Query",), (TABLE_INDEXES,)),
        # events/deliveries.py _within: a webhook limited to objects asks store/reach.py of the
        # changed entity (its parents: batch_get; a contact's reference edges and whether the
        # hearer created it: Query, Item.get)
        Grant("WebhookReach", ("dynamodb:GetItem", "dynamodb:Query"), (TABLE,)),
        # entity_search/follow.py -> opensearch_engine.py: the index created before the first
        # write (HEAD, PUT pm-entities), then the changed rows (POST pm-entities/_bulk)
        Grant("EntityIndex", ("es:ESHttpHead", "es:ESHttpPut"), (ENTITY_INDEX,), condition="UseOpenSearch"),
        Grant("EntityIndexWrites", ("es:ESHttpPost",), (ENTITY_BULK,), condition="UseOpenSearch"),
    ],
    "DeliverWebhooks": [
        # store/deliveries.py get_delivery / save_delivery (the delivery: Item.get, item.update),
        # store/webhooks.py delivery_target (the webhook and its secret: Item.get),
        # store/webhooks.py health (the health item: Item.get, conditional save on first use),
        # claim_lease / record / disable (item.update)
        Grant("Deliveries", ("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"), (TABLE,)),
        # events/delivery_worker.py: kept messages wait (delivery_queue.wait)
        Grant("DeliveryWaits", ("sqs:ChangeMessageVisibility",), (DELIVERY_QUEUE,)),
    ],
    "OnUpload": [
        # store/uploads.py get_reservations / get_reservation (batch_get, Item.get) and
        # mark_failed (update);
        # uploads/register.py via store.create: the document, its reference edges and unique
        # claims and the reservation in one transaction (put, update, delete, condition check)
        Grant(
            "Registration",
            (
                "dynamodb:GetItem",
                "dynamodb:BatchGetItem",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:DeleteItem",
                "dynamodb:ConditionCheckItem",
            ),
            (TABLE,),
        ),
        # store/entities.py create asks store/reach.py for an object-limited key's reach (Queries of
        # reference edges, the key's created contacts, the indexes); a registration's context carries
        # no such limit (the reservation was checked when asked for), but the code path is there
        Grant("ObjectKeyReach", ("dynamodb:Query",), (TABLE, TABLE_INDEXES)),
        # uploads/files.py read (the stored file, hashed and sniffed), delete (a refused or
        # unreserved file, every version) and keep_only (later uploads to a registered key)
        Grant("UploadObjects", ("s3:GetObject", "s3:DeleteObject", "s3:DeleteObjectVersion"), (UPLOAD_OBJECTS,)),
        # uploads/files.py versions(): what delete and keep_only remove
        Grant("UploadVersions", ("s3:ListBucketVersions",), (UPLOAD_BUCKET,)),
    ],
    "SweepUploads": [
        # store/uploads.py entities_with_files (Item.scan) and get_reservation (uploads/sweep.py);
        # it only reports: deleting orphans is the CLI's --delete-orphans, not the schedule's
        Grant("FileReferences", ("dynamodb:Scan", "dynamodb:GetItem"), (TABLE,)),
        # uploads/files.py stored(): list_objects_v2 over the bucket
        Grant("UploadListing", ("s3:ListBucket",), (UPLOAD_BUCKET,)),
    ],
    "WriteRequestLogs": [
        # store/requests.py write_entries: the batch's entries (batch_write)
        Grant("RequestLogWrites", ("dynamodb:BatchWriteItem",), (TABLE,)),
    ],
    "RunSandboxes": [
        # The sandbox worker (sandbox/worker.py) plants and resets a sandbox through the registry's
        # operations in its own process (sandbox/seed.py InProcess, exports/load.py, sandbox/reset.py):
        # every upsert, aliases.upsert, the types' delete, restore and update commands, and
        # documents.upload with documents.show (tests/contract/test_iam_policy.py IN_PROCESS). They
        # read and write the table: entities, their reference edges, unique claims and aliases in
        # transactions (put, update, delete, condition check), batch reads, the tenant's state
        # (store/keys.py set_sandbox_state), the idempotency and audit items, Queries of the lists
        # and the reach
        Grant(
            "SandboxData",
            (
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:DeleteItem",
                "dynamodb:ConditionCheckItem",
                "dynamodb:BatchGetItem",
                "dynamodb:BatchWriteItem",
                "dynamodb:Query",
            ),
            (TABLE,),
        ),
        # the lists, aliases and references the operations look up (gsi1..gsi4)
        Grant("SandboxIndexes", ("dynamodb:Query",), (TABLE_INDEXES,)),
        # documents.upload (uploads/files.py put: the demo's PDFs under <tenant>/documents/; delete of
        # a file refused after it was stored, every version) and documents.show (download_url, a
        # presigned GET of the registered version); a document over the direct limit goes through
        # documents.uploads.create (presigned_post under <tenant>/uploads/). Not the exports' files
        # (exports/) nor anything else of the bucket.
        Grant(
            "DocumentFiles",
            ("s3:PutObject", "s3:GetObject", "s3:GetObjectVersion", "s3:DeleteObject", "s3:DeleteObjectVersion"),
            (DOCUMENT_OBJECTS, BULK_UPLOAD_OBJECTS),
        ),
        # uploads/files.py versions(): the versions files.delete removes
        Grant("DocumentVersions", ("s3:ListBucketVersions",), (UPLOAD_BUCKET,)),
    ],
    "RunExports": [
        # store/exports.py (the export and the tenant's register of running ones: Item.get, update,
        # in transactions), store/keys.py get_key (the asking key as it is now), store/entities.py
        # live_entities and fetch_entities (the entities, chunk by chunk: batch_get), store/reach.py
        # for an object-limited key
        Grant(
            "ExportReads",
            ("dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:UpdateItem"),
            (TABLE,),
        ),
        # live_entities: the type's list index (gsi1), page by page; reach's indexes
        Grant("ExportIndexes", ("dynamodb:Query",), (TABLE_INDEXES,)),
        # exports/sink.py: the export's files, uploaded in parts (CreateMultipartUpload, UploadPart
        # and CompleteMultipartUpload are PutObject; an abandoned file's parts are aborted)
        Grant("ExportFiles", ("s3:PutObject", "s3:AbortMultipartUpload"), (EXPORT_OBJECTS,)),
        # exports/archive.py: each document's file, of its registered version, into the zip
        Grant("DocumentFiles", ("s3:GetObject", "s3:GetObjectVersion"), (UPLOAD_OBJECTS,)),
    ],
}

# What Lambda itself does with the role: read the event source.

EVENT_SOURCES: dict[str, list[Grant]] = {
    # the DynamoDB stream event source mapping polls the table's stream
    "OnTableChange": [
        Grant(
            "ChangeStream",
            ("dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"),
            (TABLE_STREAM,),
        ),
        Grant("ChangeStreams", ("dynamodb:ListStreams",), (TABLE_STREAMS,)),
        # records that still fail after the retries are described to the failure queue (on-failure destination)
        Grant("ChangeStreamFailures", ("sqs:SendMessage",), (CHANGE_STREAM_FAILURES,)),
    ],
    # the SQS event source mappings receive and delete the messages
    "DeliverWebhooks": [
        Grant(
            "DeliveryMessages", ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"), (DELIVERY_QUEUE,)
        )
    ],
    # a batch that failed its retries goes to the on-failure destination of its asynchronous invocation
    "WriteRequestLogs": [Grant("RequestLogFailures", ("sqs:SendMessage",), (REQUEST_LOG_FAILURES,))],
    "RunExports": [
        Grant("ExportMessages", ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"), (EXPORT_QUEUE,))
    ],
    "RunSandboxes": [
        Grant("SandboxJobs", ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"), (SANDBOX_QUEUE,))
    ],
    "OnUpload": [
        Grant("UploadNotices", ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"), (UPLOAD_QUEUE,))
    ],
}


def runtime(function: str) -> list[Grant]:
    """Every function: its logs (Lambda creates the group on first use) and its traces
    (Tracing: Active; Powertools Tracer). X-Ray's actions have no resource-level permissions."""
    return [
        Grant("Logs", ("logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"), (log_group(function),)),
        Grant("Traces", ("xray:PutTraceSegments", "xray:PutTelemetryRecords"), (ANY,)),
    ]


def grants(function: str) -> list[Grant]:
    return [*CODE[function], *EVENT_SOURCES.get(function, []), *runtime(function)]


def document(function: str) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": [grant.statement() for grant in grants(function)]}


def _policies(function: str) -> list[dict[str, Any]]:
    role = ROLES[function]
    return [{"PolicyName": f"{role}Policy", "PolicyDocument": document(function)}]


def resources() -> dict[str, Any]:
    """Each chalice role's inline policy, replaced (the merge replaces the list whole), and the
    MCP function's role."""
    found: dict[str, Any] = {
        role: {"Properties": {"Policies": _policies(function)}} for function, role in CHALICE_ROLES.items()
    }
    assume = {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
    found[ROLES[MCP_FUNCTION]] = {
        "Type": "AWS::IAM::Role",
        "Properties": {
            "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [assume]},
            "Policies": _policies(MCP_FUNCTION),
        },
    }
    return found
