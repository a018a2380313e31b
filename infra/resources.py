"""The deployment's resources besides the table, merged into what `chalice package` makes:
the upload bucket (versioned, encrypted, private, notifying the upload queue), the queues
with their dead-letter queue, the optional OpenSearch domain, an alarm topic with alarms,
and the functions' event sources, environment, memory and timeouts, wired by reference.

Logical ids of chalice's output (see `chalice package`): APIHandler, OnTableChange (event
OnTableChangeDynamodbEventSource), DeliverWebhooks (event DeliverWebhooksSqsEventSource),
OnUpload (event OnUploadSqsEventSource), SweepUploads, WriteRequestLogs (invoked by CloudWatch
Logs: _request_logs), RunExports (event RunExportsSqsEventSource), RunSandboxes (event
RunSandboxesSqsEventSource); with the roles ApiHandlerRole, OnTableChangeRole, DeliverWebhooksRole,
OnUploadRole, SweepUploadsRole, WriteRequestLogsRole, RunExportsRole, RunSandboxesRole (policies:
infra/policies.py). The MCP
function (McpHandler, mcp_app.py, its own bundle mcp-deployment.zip) is not chalice's: it is
defined here whole, with its route on chalice's REST API and the permission to invoke it, and
its role in infra/policies.py. Mail (sign-up codes, chalicelib/mail.py) goes out through Amazon
SES from the MailSender address, an SES identity the stack creates (or finds,
CreateMailIdentity=false)."""

from __future__ import annotations

import json
from typing import Any

from chalicelib import config
from chalicelib.errors import no_route
from chalicelib.events import changes, delivery_queue
from chalicelib.exports.keys import EXPORT_PREFIX
from chalicelib.mcp.oauth_paths import PATHS as OAUTH_PATHS
from chalicelib.paths import MCP as MCP_PATH
from chalicelib.sandbox import worker as sandbox_worker
from chalicelib.store import exports as export_store
from chalicelib.store import requests
from chalicelib.uploads import files, register
from infra import policies

FUNCTIONS = (  # chalice's (app.py)
    "APIHandler",
    "OnTableChange",
    "DeliverWebhooks",
    "OnUpload",
    "SweepUploads",
    "WriteRequestLogs",
    "RunExports",
    "RunSandboxes",
)
MCP_FUNCTION = policies.MCP_FUNCTION  # mcp_app.py, defined here
MCP_BUNDLE = "./mcp-deployment.zip"  # infra/package.py writes it beside sam.json
# The functions that send mail (chalicelib/mail.py send: sign-up codes from resources/platform.py
# signup; the console's sign-in codes and invitations): the API function, which serves the REST
# routes and the console. They get the sender and the public URL the mail's links start with, and
# may send from the sender identity (infra/policies.py); tests/contract/test_mail_infra.py checks
# these are the functions whose code reaches the call. The MCP function runs only the v2
# operations that need a key, none of which mails.
MAIL_FUNCTIONS = ("APIHandler",)
MAIL_IDENTITY = "MailIdentity"  # the AWS::SES::EmailIdentity of MailSender
# The functions that queue sandbox jobs (sandbox/jobs.py enqueue: the console's create and reset of a
# sandbox, served by the API function): they are told where the sandbox queue is, and may send to it
# (infra/policies.py). The operator's pmctl plants in its own process and queues nothing.
SANDBOX_JOB_FUNCTIONS = ("APIHandler",)
# The functions that answer HTTP print each request's log entry instead of writing it
# (store/requests.py): their log groups (policies.HTTP_LOG_GROUPS) are the stack's own, with a
# retention and a subscription filter handing the entries to WriteRequestLogs.
HTTP_LOG_GROUPS = policies.HTTP_LOG_GROUPS
LOG_RETENTION_DAYS = 30

# Memory buys CPU on Lambda. The MCP function loads the search model on its first search
# (~0.7 s at 1,769 MB = one vCPU); the API validates and answers JSON; the upload worker
# hashes files; the others move small JSON.
SIZING = {
    "APIHandler": {"MemorySize": 1769, "Timeout": 29},  # API Gateway gives up after 29 s
    MCP_FUNCTION: {"MemorySize": 1769, "Timeout": 29},
    "OnTableChange": {"MemorySize": 512, "Timeout": 120},
    # a batch's attempts run in parallel, each at most 10 s; the worker starts none after
    # delivery_worker.BUDGET_SECONDS, so a group of ten slow receivers ends in time
    "DeliverWebhooks": {"MemorySize": 512, "Timeout": 60},
    "OnUpload": {"MemorySize": 1024, "Timeout": 120},
    "SweepUploads": {"MemorySize": 1024, "Timeout": 900},
    # a subscription batch is at most 1 MB of lines: a few thousand entries, 25 to a write
    "WriteRequestLogs": {"MemorySize": 256, "Timeout": 60},
    # an export streams a tenant out in chunks (memory: a chunk, a file part, the remembered
    # aliases; bench/export.py measures its peak); the longest a function may run
    "RunExports": {"MemorySize": 1024, "Timeout": 900},
    # a sandbox job plants or resets a demo company through the operations (about a thousand
    # entities and their PDFs, Faker and fpdf2 loaded): most of a minute; the longest a function may run
    "RunSandboxes": {"MemorySize": 1024, "Timeout": 900},
}
UPLOAD_QUEUE_VISIBILITY = 6 * SIZING["OnUpload"]["Timeout"]  # AWS: at least 6x the function timeout
# An export runs alone in its batch (no batching window): its message is invisible a little longer
# than the function may run, so a worker that died is retried once its time is surely up.
EXPORT_QUEUE_VISIBILITY = SIZING["RunExports"]["Timeout"] + 60
# A sandbox job runs alone in its batch too: the same rule.
SANDBOX_QUEUE_VISIBILITY = SIZING["RunSandboxes"]["Timeout"] + 60
# The upload worker handles a batch of notices at once, each file over files.SPOOL_BYTES spooled
# to /tmp while it is hashed and sniffed (and removed once it is settled): the worst batch is
# UPLOAD_BATCH files of the bulk limit, all read at once (register.PARALLEL).
UPLOAD_BATCH = register.BATCH_SIZE
assert register.PARALLEL <= UPLOAD_BATCH
UPLOAD_TMP_MB = UPLOAD_BATCH * files.MAX_BULK_BYTES // files.MiB + 512  # + Lambda's default, for the runtime's own use
assert int(delivery_queue.QUEUE_SETTINGS["VisibilityTimeout"]) >= 3 * SIZING["DeliverWebhooks"]["Timeout"]


def _sub(text: str) -> dict[str, Any]:
    return {"Fn::Sub": text}


def _arn(logical_id: str) -> dict[str, Any]:
    return {"Fn::GetAtt": [logical_id, "Arn"]}


def parameters() -> dict[str, Any]:
    return {
        "AlarmEmail": {
            "Type": "String",
            "Default": "",
            "Description": "E-mail address alarms go to (empty: no subscription; subscribe to the topic later).",
        },
        "SearchBackend": {
            "Type": "String",
            "AllowedValues": ["embedded", "opensearch"],
            "Default": "embedded",
            "Description": (
                "Tool and docs search: in the function (embedded) or an OpenSearch domain created by this stack."
            ),
        },
        "SearchModelBucket": {
            "Type": "String",
            "AllowedPattern": r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$",
            "ConstraintDescription": "an S3 bucket name",
            "Description": "The bucket holding the search models under search-models/<digest>/ (`make deploy` "
            "copies them to its ARTIFACT_BUCKET and names it here); the MCP function fetches them on its first search.",
        },
        "SearchInstanceType": {
            "Type": "String",
            "Default": "t3.small.search",
            "Description": "OpenSearch data node type (SearchBackend=opensearch).",
        },
        "McpAllowedHosts": {
            "Type": "String",
            "Default": "*",
            "Description": "Host names the MCP endpoint answers (DNS-rebinding protection); "
            "* leaves the check to API Gateway's own host handling.",
        },
        "MailSender": {
            "Type": "String",
            "AllowedPattern": r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
            "ConstraintDescription": "an e-mail address, e.g. no-reply@example.org",
            "Description": "From address of the service's mail (sign-up codes). The stack makes it an SES identity "
            "(CreateMailIdentity) and SES mails a verification link to it: nothing is sent before it is "
            "verified, and while the account is in the SES sandbox only to verified recipients; request "
            "production access to mail arbitrary addresses.",
        },
        "CreateMailIdentity": {
            "Type": "String",
            "AllowedValues": ["true", "false"],
            "Default": "true",
            "Description": "false when MailSender is an SES identity of this account and region already "
            "(made by hand or by another stage's stack: an identity belongs to one stack).",
        },
        "PublicUrl": {
            "Type": "String",
            "Default": "",
            "AllowedPattern": r"^(https://[^\s/]+(/[^\s]*)?)?$",
            "ConstraintDescription": "empty or an https:// address",
            "Description": "The service's public base address, where links in mail point (e.g. a custom domain "
            "https://api.example.org). Empty: infra/after_deploy.py sets it to the API's own address "
            "(EndpointURL) after the first deployment (the functions cannot name their own API in the template).",
        },
        "SalesContact": {
            "Type": "String",
            "Default": "sales@propertymanagement.example",
            "Description": "Named to tenants whose trial ended.",
        },
        "UploadCorsOrigin": {
            "Type": "String",
            "Default": "*",
            "Description": "Origin allowed to POST files to presigned upload URLs from a browser.",
        },
        "ApiRateLimit": {
            "Type": "Number",
            "Default": 1000,
            "MinValue": 1,
            "Description": "API Gateway stage throttle: requests per second over all callers "
            "(the account's own default is 10,000).",
        },
        "ApiBurstLimit": {
            "Type": "Number",
            "Default": 2000,
            "MinValue": 1,
            "Description": "API Gateway stage throttle: requests at once over all callers.",
        },
        "McpConcurrency": {
            "Type": "Number",
            "Default": 100,
            "MinValue": 0,
            "Description": (
                "Concurrency reserved for (and capping) the MCP function, beside ApiConcurrency; 0 reserves none."
            ),
        },
        "ApiConcurrency": {
            "Type": "Number",
            "Default": 400,
            "MinValue": 0,
            "Description": "Concurrency reserved for (and capping) the API function, "
            "so the stream, delivery and upload functions always have room; "
            "0 reserves none (an account whose Lambda quota is under 1,000 must leave 100 unreserved).",
        },
        "SignupRateLimit": {
            "Type": "Number",
            "Default": 0,
            "MinValue": 0,
            "Description": "A WAF rate-based rule: sign-ups per source address in 5 minutes (at least 10); "
            "0 creates no WAF (a web ACL costs about $5 a month, its rule $1, and $0.60 per million requests).",
        },
        "SourceRateLimit": {
            "Type": "Number",
            "Default": 0,
            "MinValue": 0,
            "Description": "A WAF rate-based rule: requests per source address in 5 minutes on every path "
            "(at least 10; e.g. 30000, 100 a second); 0 creates no such rule. Shares the web ACL of "
            "SignupRateLimit (the ACL exists when either is set).",
        },
        "DeliveryConcurrency": {
            "Type": "Number",
            "Default": 200,
            "MinValue": 2,
            "MaxValue": 1000,
            "Description": "Most webhook delivery workers at once (each sends up to ten groups in parallel); "
            "the rest of the account's Lambda concurrency stays free for the API.",
        },
    }


def conditions() -> dict[str, Any]:
    return {
        "UseOpenSearch": {"Fn::Equals": [{"Ref": "SearchBackend"}, "opensearch"]},
        "HasAlarmEmail": {"Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmEmail"}, ""]}]},
        "IsProd": {"Fn::Equals": [{"Ref": "Stage"}, "prod"]},
        "ReservesApiConcurrency": {"Fn::Not": [{"Fn::Equals": [{"Ref": "ApiConcurrency"}, 0]}]},
        "ReservesMcpConcurrency": {"Fn::Not": [{"Fn::Equals": [{"Ref": "McpConcurrency"}, 0]}]},
        "HasSignupFirewall": {"Fn::Not": [{"Fn::Equals": [{"Ref": "SignupRateLimit"}, 0]}]},
        "HasSourceRateRule": {"Fn::Not": [{"Fn::Equals": [{"Ref": "SourceRateLimit"}, 0]}]},
        "HasFirewall": {"Fn::Or": [{"Condition": "HasSignupFirewall"}, {"Condition": "HasSourceRateRule"}]},
        "CreatesMailIdentity": {"Fn::Equals": [{"Ref": "CreateMailIdentity"}, "true"]},
    }


def _bucket() -> dict[str, Any]:
    return {
        "UploadBucket": {
            "Type": "AWS::S3::Bucket",
            "DependsOn": "UploadQueuePolicy",  # S3 checks it may send to the queue when the notification is set
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
            "Properties": {
                "VersioningConfiguration": {"Status": "Enabled"},  # registration pins the version it hashed
                "BucketEncryption": {
                    "ServerSideEncryptionConfiguration": [
                        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}, "BucketKeyEnabled": True}
                    ]
                },
                "PublicAccessBlockConfiguration": {
                    "BlockPublicAcls": True,
                    "BlockPublicPolicy": True,
                    "IgnorePublicAcls": True,
                    "RestrictPublicBuckets": True,
                },
                "OwnershipControls": {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]},
                "LifecycleConfiguration": {
                    "Rules": [
                        {
                            "Id": "abort-incomplete-multipart",
                            "Status": "Enabled",
                            "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1},
                        },
                        # a refused or replaced upload leaves a noncurrent version behind (deleted by the
                        # worker; this is the backstop)
                        {
                            "Id": "expire-noncurrent",
                            "Status": "Enabled",
                            "NoncurrentVersionExpiration": {"NoncurrentDays": 30},
                        },
                        # exports' files (chalicelib/exports/sink.py) are kept EXPORT_KEEP_DAYS
                        {
                            "Id": "expire-exports",
                            "Status": "Enabled",
                            "Prefix": EXPORT_PREFIX,
                            "ExpirationInDays": config.EXPORT_KEEP_DAYS,
                            "NoncurrentVersionExpiration": {"NoncurrentDays": 1},
                        },
                    ]
                },
                "CorsConfiguration": {
                    "CorsRules": [
                        {
                            "AllowedMethods": ["POST", "GET"],
                            "AllowedOrigins": [{"Ref": "UploadCorsOrigin"}],
                            "AllowedHeaders": ["*"],
                            "MaxAge": 3000,
                        }
                    ]
                },
                "NotificationConfiguration": {
                    "QueueConfigurations": [{"Event": "s3:ObjectCreated:*", "Queue": _arn("UploadQueue")}]
                },
            },
        },
        "UploadBucketPolicy": {
            "Type": "AWS::S3::BucketPolicy",
            "Properties": {
                "Bucket": {"Ref": "UploadBucket"},
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "TlsOnly",
                            "Effect": "Deny",
                            "Principal": "*",
                            "Action": "s3:*",
                            "Resource": [_arn("UploadBucket"), _sub("${UploadBucket.Arn}/*")],
                            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                        }
                    ],
                },
            },
        },
    }


def _queues() -> dict[str, Any]:
    return {
        "UploadDeadLetterQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-uploads-dlq"),
                "MessageRetentionPeriod": 1209600,
                "SqsManagedSseEnabled": True,
            },
        },
        # Exports (chalicelib/exports/queue.py): one message per export; one that keeps killing
        # its worker goes to the dead-letter queue (the export then reads as failed).
        "ExportDeadLetterQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-exports-dlq"),
                "MessageRetentionPeriod": 1209600,
                "SqsManagedSseEnabled": True,
            },
        },
        "ExportQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-exports"),
                "VisibilityTimeout": EXPORT_QUEUE_VISIBILITY,
                "MessageRetentionPeriod": 86400,
                "SqsManagedSseEnabled": True,
                "RedrivePolicy": {
                    "deadLetterTargetArn": _arn("ExportDeadLetterQueue"),
                    "maxReceiveCount": export_store.MAX_ATTEMPTS,
                },
            },
        },
        # Sandbox jobs (chalicelib/sandbox/jobs.py): one message per planting or reset; a job that
        # failed every attempt (the worker reports it, or it killed the worker) goes to the
        # dead-letter queue (the sandbox then reads as failed).
        "SandboxDeadLetterQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-sandboxes-dlq"),
                "MessageRetentionPeriod": 1209600,
                "SqsManagedSseEnabled": True,
            },
        },
        "SandboxQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-sandboxes"),
                "VisibilityTimeout": SANDBOX_QUEUE_VISIBILITY,
                "MessageRetentionPeriod": 86400,
                "SqsManagedSseEnabled": True,
                "RedrivePolicy": {
                    "deadLetterTargetArn": _arn("SandboxDeadLetterQueue"),
                    "maxReceiveCount": sandbox_worker.MAX_RECEIVES,
                },
            },
        },
        "UploadQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-uploads"),
                "VisibilityTimeout": UPLOAD_QUEUE_VISIBILITY,
                "MessageRetentionPeriod": 345600,
                "SqsManagedSseEnabled": True,
                "RedrivePolicy": {"deadLetterTargetArn": _arn("UploadDeadLetterQueue"), "maxReceiveCount": 5},
            },
        },
        # Webhook deliveries (chalicelib/events/delivery_queue.py): FIFO, one message group per
        # (webhook, entity); high-throughput mode (deduplication and throughput per group:
        # the deduplication id is (webhook, event), always inside one group).
        "DeliveryDeadLetterQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-deliveries-dlq.fifo"),
                "FifoQueue": True,
                "MessageRetentionPeriod": 1209600,
                "SqsManagedSseEnabled": True,
            },
        },
        "DeliveryQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-deliveries.fifo"),
                "FifoQueue": True,
                **{name: int(value) for name, value in delivery_queue.QUEUE_SETTINGS.items()},
                **delivery_queue.FIFO_SETTINGS,
                "SqsManagedSseEnabled": True,
                "RedrivePolicy": {
                    "deadLetterTargetArn": _arn("DeliveryDeadLetterQueue"),
                    "maxReceiveCount": delivery_queue.MAX_RECEIVES,
                },
            },
        },
        # Change-stream batches that still fail after the retries are not dropped: Lambda writes
        # where they are (shard, sequence numbers) here, for an operator to replay within the
        # stream's 24 hours (alarm below).
        "ChangeStreamFailureQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-change-stream-failures"),
                "MessageRetentionPeriod": 1209600,
                "SqsManagedSseEnabled": True,
            },
        },
        # Request-log batches that WriteRequestLogs failed to store three times (its asynchronous
        # invocation's retries): Lambda puts the invocation record here, the batch's lines within
        # (requestPayload), for `pmctl requestlogs replay` (alarm below).
        "RequestLogFailureQueue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": _sub("pm-${Stage}-request-log-failures"),
                "MessageRetentionPeriod": 1209600,
                "SqsManagedSseEnabled": True,
            },
        },
        "UploadQueuePolicy": {
            "Type": "AWS::SQS::QueuePolicy",
            "Properties": {
                "Queues": [{"Ref": "UploadQueue"}],
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "S3Notifications",
                            "Effect": "Allow",
                            "Principal": {"Service": "s3.amazonaws.com"},
                            "Action": "sqs:SendMessage",
                            "Resource": _arn("UploadQueue"),
                            # the bucket's own ARN would make a cycle (bucket -> queue policy -> bucket):
                            # any bucket of this account, which only this stack's bucket notifies
                            "Condition": {
                                "StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}},
                                "ArnLike": {"aws:SourceArn": _sub("arn:${AWS::Partition}:s3:::*")},
                            },
                        }
                    ],
                },
            },
        },
    }


def _mail() -> dict[str, Any]:
    """The sender address as an SES identity: creating it makes SES mail a verification link to
    the address; SES sends from it once the link was followed. The functions' policies name the
    identity by the parameter (infra/policies.py MAIL_IDENTITY), which holds when it is not made
    here (CreateMailIdentity=false)."""
    return {
        MAIL_IDENTITY: {
            "Type": "AWS::SES::EmailIdentity",
            "Condition": "CreatesMailIdentity",
            "Properties": {"EmailIdentity": {"Ref": "MailSender"}},
        }
    }


def _search() -> dict[str, Any]:
    return {
        "SearchDomain": {
            "Type": "AWS::OpenSearchService::Domain",
            "Condition": "UseOpenSearch",
            "DeletionPolicy": "Delete",  # an index rebuilt from the code at every deployment
            "UpdateReplacePolicy": "Delete",
            "Properties": {
                "EngineVersion": "OpenSearch_2.19",  # pagination_depth of hybrid queries needs 2.19
                "ClusterConfig": {"InstanceType": {"Ref": "SearchInstanceType"}, "InstanceCount": 1},
                "EBSOptions": {"EBSEnabled": True, "VolumeType": "gp3", "VolumeSize": 10},
                "EncryptionAtRestOptions": {"Enabled": True},
                "NodeToNodeEncryptionOptions": {"Enabled": True},
                "DomainEndpointOptions": {"EnforceHTTPS": True, "TLSSecurityPolicy": "Policy-Min-TLS-1-2-2019-07"},
                # the account may reach the domain; IAM policies (the MCP function's role, the
                # operator who indexes at deploy time) decide who does
                "AccessPolicies": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"AWS": _sub("arn:${AWS::Partition}:iam::${AWS::AccountId}:root")},
                            "Action": "es:ESHttp*",
                            "Resource": _sub("arn:${AWS::Partition}:es:${AWS::Region}:${AWS::AccountId}:domain/*"),
                        }
                    ],
                },
            },
        }
    }


def _alarm(
    name: str,
    description: str,
    namespace: str,
    metric: str,
    dimensions: list[dict[str, Any]],
    threshold: float,
    *,
    statistic: str = "Sum",
) -> dict[str, Any]:
    return {
        name: {
            "Type": "AWS::CloudWatch::Alarm",
            "Properties": {
                "AlarmDescription": description,
                "Namespace": namespace,
                "MetricName": metric,
                "Dimensions": dimensions,
                "Statistic": statistic,
                "Period": 300,
                "EvaluationPeriods": 1,
                "Threshold": threshold,
                "ComparisonOperator": "GreaterThanThreshold",
                "TreatMissingData": "notBreaching",
                "AlarmActions": [{"Ref": "AlarmTopic"}],
                "OKActions": [{"Ref": "AlarmTopic"}],
            },
        }
    }


def _alarms() -> dict[str, Any]:
    found: dict[str, Any] = {
        "AlarmTopic": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": _sub("pm-${Stage}-alarms")}},
        "AlarmEmailSubscription": {
            "Type": "AWS::SNS::Subscription",
            "Condition": "HasAlarmEmail",
            "Properties": {"TopicArn": {"Ref": "AlarmTopic"}, "Protocol": "email", "Endpoint": {"Ref": "AlarmEmail"}},
        },
    }
    queue = [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["UploadDeadLetterQueue", "QueueName"]}}]
    found |= _alarm(
        "UploadDeadLettersAlarm",
        "Upload notices failed five times and wait in the dead-letter queue.",
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        queue,
        0,
        statistic="Maximum",
    )
    deliveries = [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["DeliveryDeadLetterQueue", "QueueName"]}}]
    found |= _alarm(
        "DeliveryDeadLettersAlarm",
        "A webhook delivery message failed in the worker itself 1,000 times and waits in the dead-letter queue.",
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        deliveries,
        0,
        statistic="Maximum",
    )
    exports = [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["ExportDeadLetterQueue", "QueueName"]}}]
    found |= _alarm(
        "ExportDeadLettersAlarm",
        "An export's worker died on it three times (its time or memory): the export failed.",
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        exports,
        0,
        statistic="Maximum",
    )
    sandboxes = [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["SandboxDeadLetterQueue", "QueueName"]}}]
    found |= _alarm(
        "SandboxDeadLettersAlarm",
        "A sandbox's planting or reset failed three times: the sandbox stays failed until it is reset or deleted.",
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        sandboxes,
        0,
        statistic="Maximum",
    )
    failures = [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["ChangeStreamFailureQueue", "QueueName"]}}]
    found |= _alarm(
        "ChangeStreamFailuresAlarm",
        "Change-stream records failed ten times: audit records or webhook events are missing until replayed.",
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        failures,
        0,
        statistic="Maximum",
    )
    request_logs = [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["RequestLogFailureQueue", "QueueName"]}}]
    found |= _alarm(
        "RequestLogFailuresAlarm",
        "Request-log batches failed three times: keys' request logs miss entries until replayed.",
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        request_logs,
        0,
        statistic="Maximum",
    )
    for function in (*FUNCTIONS, MCP_FUNCTION):
        dimension = [{"Name": "FunctionName", "Value": {"Ref": function}}]
        found |= _alarm(
            f"{function}ErrorsAlarm",
            f"{function} failed (uncaught errors or timeouts).",
            "AWS/Lambda",
            "Errors",
            dimension,
            0,
        )
    stream = [{"Name": "FunctionName", "Value": {"Ref": "OnTableChange"}}]
    found |= _alarm(
        "ChangeStreamLagAlarm",
        "Audit records and webhooks lag more than a minute behind the table.",
        "AWS/Lambda",
        "IteratorAge",
        stream,
        60000,
        statistic="Maximum",
    )
    api: list[dict[str, Any]] = [
        {"Name": "ApiName", "Value": "propertymanagement"},
        {"Name": "Stage", "Value": {"Ref": "Stage"}},
    ]
    found |= _alarm(
        "Api5xxAlarm",
        "The API answered 5xx (internal error or unavailable dependency).",
        "AWS/ApiGateway",
        "5XXError",
        api,
        5,
    )
    return found


def _environment() -> dict[str, Any]:
    return {
        "PM_STAGE": {"Ref": "Stage"},
        "PM_TABLE_NAME": {"Ref": "Table"},
        "PM_UPLOAD_BUCKET": {"Ref": "UploadBucket"},
        "PM_UPLOAD_QUEUE_URL": {"Ref": "UploadQueue"},
        "PM_UPLOAD_DLQ_URL": {"Ref": "UploadDeadLetterQueue"},
        "PM_DELIVERY_QUEUE_URL": {"Ref": "DeliveryQueue"},
        "PM_EXPORT_QUEUE_URL": {"Ref": "ExportQueue"},
        "PM_DELIVERY_DLQ_URL": {"Ref": "DeliveryDeadLetterQueue"},
        "PM_STREAM_DLQ_URL": {"Ref": "ChangeStreamFailureQueue"},
        "PM_SEARCH_BACKEND": {"Ref": "SearchBackend"},
        "PM_OPENSEARCH_ENDPOINT": {"Fn::If": ["UseOpenSearch", _sub("https://${SearchDomain.DomainEndpoint}"), ""]},
        # the entity index is the domain's; a function's own SQLite would see nothing the stream wrote
        "PM_ENTITY_SEARCH_ENGINE": {"Fn::If": ["UseOpenSearch", "opensearch", "off"]},
        "PM_MCP_ALLOWED_HOSTS": {"Ref": "McpAllowedHosts"},
        "PM_SALES_CONTACT": {"Ref": "SalesContact"},
        "PM_KEY_ENVIRONMENT": {"Fn::If": ["IsProd", "live", "test"]},
    }


def _mail_environment() -> dict[str, Any]:
    """What mail needs (MAIL_FUNCTIONS): the sender (config.mail_sender; set, mail goes through SES
    instead of the local outbox) and the base of the links in it (config.public_url)."""
    return {"PM_MAIL_SENDER": {"Ref": "MailSender"}, "PM_PUBLIC_URL": {"Ref": "PublicUrl"}}


def _variables(function: str) -> dict[str, Any]:
    return {
        **_environment(),
        **(_mail_environment() if function in MAIL_FUNCTIONS else {}),
        **({"PM_SANDBOX_QUEUE_URL": {"Ref": "SandboxQueue"}} if function in SANDBOX_JOB_FUNCTIONS else {}),
        **({"PM_REQUEST_LOG": "logs"} if function in HTTP_LOG_GROUPS else {}),
    }


def _request_logs() -> dict[str, Any]:
    """The HTTP functions' log groups (theirs through LoggingConfig), each with a subscription
    filter that hands the request-log lines to WriteRequestLogs, and the permission for CloudWatch
    Logs to invoke it. The writer retries a failed batch twice, then puts it on the failure queue."""
    found: dict[str, Any] = {}
    for function, group in HTTP_LOG_GROUPS.items():
        permission = f"{group}InvokesWriteRequestLogs"
        found[group] = {
            "Type": "AWS::Logs::LogGroup",
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
            "Properties": {"RetentionInDays": LOG_RETENTION_DAYS},
        }
        found[function] = {"Properties": {"LoggingConfig": {"LogGroup": {"Ref": group}, "LogFormat": "Text"}}}
        found[permission] = {
            "Type": "AWS::Lambda::Permission",
            "Properties": {
                "FunctionName": _arn("WriteRequestLogs"),
                "Action": "lambda:InvokeFunction",
                "Principal": "logs.amazonaws.com",
                "SourceAccount": {"Ref": "AWS::AccountId"},
                "SourceArn": _arn(group),
            },
        }
        found[f"{group}RequestLogSubscription"] = {
            "Type": "AWS::Logs::SubscriptionFilter",
            "DependsOn": permission,
            "Properties": {
                "LogGroupName": {"Ref": group},
                "FilterPattern": requests.LOG_FILTER,
                "DestinationArn": _arn("WriteRequestLogs"),
            },
        }
    found["WriteRequestLogs"] = {
        "Properties": {
            "EventInvokeConfig": {
                "MaximumRetryAttempts": 2,
                "DestinationConfig": {"OnFailure": {"Type": "SQS", "Destination": _arn("RequestLogFailureQueue")}},
            }
        }
    }
    return found


def _functions() -> dict[str, Any]:
    """Chalice's functions, completed: sizes, environment, and event sources by reference
    (chalice writes the placeholder ARNs of app.py; these replace them)."""
    found = {
        name: {"Properties": {**SIZING[name], "Tracing": "Active", "Environment": {"Variables": _variables(name)}}}
        for name in FUNCTIONS
    }
    found["OnTableChange"]["Properties"]["Events"] = {
        "OnTableChangeDynamodbEventSource": {
            "Properties": {
                "Stream": {"Fn::GetAtt": ["Table", "StreamArn"]},
                "StartingPosition": "TRIM_HORIZON",  # nothing written before the first deployment is skipped
                "MaximumRetryAttempts": 10,
                "BisectBatchOnFunctionError": True,
                "DestinationConfig": {"OnFailure": {"Destination": _arn("ChangeStreamFailureQueue")}},
                "FunctionResponseTypes": ["ReportBatchItemFailures"],
                # only entity and account writes make audit records (events/changes.py from_record):
                # request logs, rate counters and delivery state never invoke the function
                "FilterCriteria": {"Filters": [{"Pattern": json.dumps(changes.STREAM_FILTER)}]},
            }
        }
    }
    found["APIHandler"]["Properties"]["ReservedConcurrentExecutions"] = {
        "Fn::If": ["ReservesApiConcurrency", {"Ref": "ApiConcurrency"}, {"Ref": "AWS::NoValue"}]
    }
    found["DeliverWebhooks"]["Properties"]["Events"] = {
        "DeliverWebhooksSqsEventSource": {
            "Properties": {
                "Queue": _arn("DeliveryQueue"),
                "FunctionResponseTypes": ["ReportBatchItemFailures"],
                "ScalingConfig": {"MaximumConcurrency": {"Ref": "DeliveryConcurrency"}},
            }
        }
    }
    found["OnUpload"]["Properties"]["Events"] = {
        "OnUploadSqsEventSource": {
            "Properties": {
                "Queue": _arn("UploadQueue"),
                "BatchSize": UPLOAD_BATCH,
                "FunctionResponseTypes": ["ReportBatchItemFailures"],
            }
        }
    }
    found["OnUpload"]["Properties"]["EphemeralStorage"] = {"Size": UPLOAD_TMP_MB}
    found["RunExports"]["Properties"]["Events"] = {
        "RunExportsSqsEventSource": {"Properties": {"Queue": _arn("ExportQueue"), "BatchSize": 1}}
    }
    found["RunSandboxes"]["Properties"]["Events"] = {
        "RunSandboxesSqsEventSource": {
            "Properties": {
                "Queue": _arn("SandboxQueue"),
                "BatchSize": 1,
                "FunctionResponseTypes": ["ReportBatchItemFailures"],
            }
        }
    }
    return found


def _mcp_function() -> dict[str, Any]:
    """The MCP function, its route on the REST API (what chalice writes for a route of its own,
    pointing at this function) and API Gateway's permission to invoke it."""
    integration = {
        "responses": {"default": {"statusCode": "200"}},
        "uri": _sub(
            f"arn:${{AWS::Partition}}:apigateway:${{AWS::Region}}:lambda:path/2015-03-31/functions/${{{MCP_FUNCTION}.Arn}}/invocations"
        ),
        "passthroughBehavior": "when_no_match",
        "httpMethod": "POST",
        "contentHandling": "CONVERT_TO_TEXT",
        "type": "aws_proxy",
    }
    method = {
        "consumes": ["application/json", "text/plain", "application/x-www-form-urlencoded"],
        "produces": ["application/json"],
        "responses": {"200": {"description": "200 response", "schema": {"$ref": "#/definitions/Empty"}}},
        "x-amazon-apigateway-integration": integration,
    }
    return {
        MCP_FUNCTION: {
            "Type": "AWS::Serverless::Function",
            "Properties": {
                "Runtime": "python3.11",
                "Handler": "mcp_app.app",
                "CodeUri": MCP_BUNDLE,
                "Architectures": ["x86_64"],
                "Role": _arn(f"{MCP_FUNCTION}Role"),
                "Tags": {"app": "propertymanagement-mcp"},
                **SIZING[MCP_FUNCTION],
                "Tracing": "Active",
                "ReservedConcurrentExecutions": {
                    "Fn::If": ["ReservesMcpConcurrency", {"Ref": "McpConcurrency"}, {"Ref": "AWS::NoValue"}]
                },
                "Environment": {
                    "Variables": {
                        "POWERTOOLS_SERVICE_NAME": "propertymanagement",
                        "POWERTOOLS_LOG_LEVEL": {"Fn::If": ["IsProd", "WARNING", "INFO"]},
                        **_variables(MCP_FUNCTION),
                        "PM_SEARCH_MODEL_BUCKET": {"Ref": "SearchModelBucket"},
                    }
                },
            },
        },
        f"{MCP_FUNCTION}InvokePermission": {
            "Type": "AWS::Lambda::Permission",
            "Properties": {
                "FunctionName": {"Ref": MCP_FUNCTION},
                "Action": "lambda:InvokeFunction",
                "Principal": "apigateway.amazonaws.com",
                "SourceArn": _sub("arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${RestAPI}/*"),
            },
        },
        # the MCP endpoint and the OAuth authorization server's endpoints (chalicelib/mcp/oauth_paths.py)
        "RestAPI": {
            "Properties": {
                "DefinitionBody": {
                    "paths": {
                        MCP_PATH: {verb: method for verb in ("get", "post", "delete")},
                        **{path: {verb: method for verb in ("get", "post")} for path in OAUTH_PATHS},
                    }
                }
            }
        },
    }


def _merged(*parts: dict[str, Any]) -> dict[str, Any]:
    """Resource patches merged key by key (two parts may patch RestAPI)."""
    found: dict[str, Any] = {}

    def merge(into: dict[str, Any], patch: dict[str, Any]) -> None:
        for key, value in patch.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                merge(into[key], value)
            else:
                into[key] = value

    for part in parts:
        merge(found, json.loads(json.dumps(part)))
    return found


def _firewall() -> dict[str, Any]:
    """Optional: a WAF web ACL on the API stage, present when either of its rules is asked for,
    and holding only those. With SignupRateLimit > 0, a rule blocks a source address that signs
    up more than the limit in 5 minutes (429), before the function runs; the app limits sign-ups
    per source address too (chalicelib/throttle.py). Both steps count: the sign-up (which mails
    a code) and its confirmation (code attempts). With SourceRateLimit > 0, a rule blocks a
    source address past that many requests in 5 minutes on any path (429): the app's limits
    count per key and per tenant, and the stage's throttle is shared by every tenant, so one
    address (with many keys, or none) must not spend it for all."""

    def visibility(name: str) -> dict[str, Any]:
        return {"SampledRequestsEnabled": True, "CloudWatchMetricsEnabled": True, "MetricName": name}

    # .../command/signup and .../command/signup.confirm (and either with a trailing slash)
    def match(field: str, text: str, where: str) -> dict[str, Any]:
        return {
            "ByteMatchStatement": {
                "SearchString": text,
                "FieldToMatch": {field: {}},
                "TextTransformations": [{"Priority": 0, "Type": "LOWERCASE"}],
                "PositionalConstraint": where,
            }
        }

    # Both steps of the API's sign-up, and the console's forms that mail or check a code
    # (/console/signup, /signup/confirm, /signin, /signin/code) when posted: viewing them is free.
    console_forms = match("UriPath", "/console/sign", "CONTAINS")
    signup_paths = {
        "OrStatement": {
            "Statements": [
                match("UriPath", "/command/signup", "CONTAINS"),
                {"AndStatement": {"Statements": [match("Method", "post", "EXACTLY"), console_forms]}},
            ]
        }
    }
    refuse = {"Block": {"CustomResponse": {"ResponseCode": 429}}}
    signups = {
        "Name": "signups-per-source",
        "Priority": 0,
        "Action": refuse,
        "Statement": {
            "RateBasedStatement": {
                "Limit": {"Ref": "SignupRateLimit"},
                "EvaluationWindowSec": 300,
                "AggregateKeyType": "IP",
                "ScopeDownStatement": signup_paths,
            }
        },
        "VisibilityConfig": visibility("pm-signups-per-source"),
    }
    requests = {  # every path: no scope-down statement
        "Name": "requests-per-source",
        "Priority": 1,
        "Action": refuse,
        "Statement": {
            "RateBasedStatement": {
                "Limit": {"Ref": "SourceRateLimit"},
                "EvaluationWindowSec": 300,
                "AggregateKeyType": "IP",
            }
        },
        "VisibilityConfig": visibility("pm-requests-per-source"),
    }

    def only_if(condition: str, rule: dict[str, Any]) -> dict[str, Any]:
        return {"Fn::If": [condition, rule, {"Ref": "AWS::NoValue"}]}

    return {
        # The logical id is the one the ACL had when it held the sign-up rule alone: a new id would
        # replace the ACL, and the replacement's name would collide with the old one's.
        "SignupFirewall": {
            "Type": "AWS::WAFv2::WebACL",
            "Condition": "HasFirewall",
            "Properties": {
                "Name": _sub("pm-${Stage}-api"),
                "Scope": "REGIONAL",
                "DefaultAction": {"Allow": {}},
                "VisibilityConfig": visibility("pm-api"),
                "Rules": [only_if("HasSignupFirewall", signups), only_if("HasSourceRateRule", requests)],
            },
        },
        "SignupFirewallAssociation": {
            "Type": "AWS::WAFv2::WebACLAssociation",
            "Condition": "HasFirewall",
            "Properties": {
                # RestAPI.Stage: SAM's reference to the stage it generates (and the dependency on it)
                "ResourceArn": {
                    "Fn::Join": [
                        "",
                        [
                            "arn:",
                            {"Ref": "AWS::Partition"},
                            ":apigateway:",
                            {"Ref": "AWS::Region"},
                            "::/restapis/",
                            {"Ref": "RestAPI"},
                            "/stages/",
                            {"Ref": "RestAPI.Stage"},
                        ],
                    ]
                },
                "WebACLArn": _arn("SignupFirewall"),
            },
        },
    }


def _gateway_responses() -> dict[str, Any]:
    """What API Gateway answers itself, in problem+json like the app: a method and path no
    route serves (its 403 "Missing Authentication Token") becomes the app's own 404 no_route
    (chalicelib/local/http_server.py answers the same locally); its other refusals (its
    throttle, bodies over 10 MB, timeouts) keep their status and carry its message. Merged
    into the API's OpenAPI body, so they deploy with the API itself."""
    problem = {"Content-Type": "'application/problem+json'"}
    routed = json.dumps(no_route("$context.httpMethod", "$context.path").problem("$context.requestId"))

    def passed_on(code: str, title: str) -> str:
        body = {
            "type": f"urn:pm:problem:{code}",
            "title": title,
            "detail": "MESSAGE",
            "code": code,
            "requestId": "$context.requestId",
        }
        return json.dumps(body).replace('"MESSAGE"', "$context.error.messageString")  # already a quoted JSON string

    def response(template: str, status: str | None = None) -> dict[str, Any]:
        found: dict[str, Any] = {
            "responseParameters": {f"gatewayresponse.header.{name}": value for name, value in problem.items()},
            "responseTemplates": {"application/json": template},
        }
        return {**found, "statusCode": status} if status else found

    return {
        "RestAPI": {
            "Properties": {
                # the stage's own throttle, over all callers (429 from API Gateway, in problem+json below)
                "MethodSettings": [
                    {
                        "ResourcePath": "/*",
                        "HttpMethod": "*",
                        "ThrottlingRateLimit": {"Ref": "ApiRateLimit"},
                        "ThrottlingBurstLimit": {"Ref": "ApiBurstLimit"},
                    }
                ],
                "DefinitionBody": {
                    "x-amazon-apigateway-gateway-responses": {
                        "MISSING_AUTHENTICATION_TOKEN": response(routed, "404"),
                        "DEFAULT_4XX": response(passed_on("gateway_refused", "Refused by the API gateway")),
                        "DEFAULT_5XX": response(passed_on("gateway_error", "API gateway error")),
                    }
                },
            }
        }
    }


def resources() -> dict[str, Any]:
    return _merged(
        _bucket(),
        _queues(),
        _mail(),
        _search(),
        _alarms(),
        _functions(),
        _gateway_responses(),
        _mcp_function(),
        _request_logs(),
        _firewall(),
    )


def outputs() -> dict[str, Any]:
    return {
        "UploadBucketName": {"Value": {"Ref": "UploadBucket"}},
        "UploadQueueUrl": {"Value": {"Ref": "UploadQueue"}},
        "UploadDeadLetterQueueUrl": {"Value": {"Ref": "UploadDeadLetterQueue"}},
        "DeliveryQueueUrl": {"Value": {"Ref": "DeliveryQueue"}},
        "DeliveryDeadLetterQueueUrl": {"Value": {"Ref": "DeliveryDeadLetterQueue"}},
        "AlarmTopicArn": {"Value": {"Ref": "AlarmTopic"}},
        "RequestLogFailureQueueUrl": {"Value": {"Ref": "RequestLogFailureQueue"}},
        "SearchEndpoint": {"Condition": "UseOpenSearch", "Value": _sub("https://${SearchDomain.DomainEndpoint}")},
    }
