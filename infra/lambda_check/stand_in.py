"""AWS for the check: moto's server on loopback (patched as `make serve` runs it), with the
resources the template defines made from their own definitions (the table's keys, indexes,
stream and time to live; the queues' attributes and redrive policies; the bucket's versioning,
encryption and notifications to the upload queue; the mail identity), so the functions meet
what a deployment of this template gives them. Resource types the functions never call (roles,
alarms, the firewall, the API itself) are named, not made: their references resolve to the
names CloudFormation would give."""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import boto3
from moto.server import ThreadedMotoServer

from chalicelib.local import moto_patches
from chalicelib.local.stack import free_port
from infra.lambda_check.template import ACCOUNT, REGION, STACK, Template, TemplateError

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "lambda-check", "AWS_SECRET_ACCESS_KEY": "lambda-check"}
# Made in this order: what a resource refers to first.
MADE = (
    "AWS::SQS::Queue",
    "AWS::DynamoDB::Table",
    "AWS::SQS::QueuePolicy",
    "AWS::S3::Bucket",
    "AWS::SES::EmailIdentity",
)
NAMED = (
    "AWS::IAM::Role",
    "AWS::Serverless::Function",
    "AWS::Serverless::Api",
    "AWS::Lambda::Permission",
    "AWS::SNS::Topic",
    "AWS::SNS::Subscription",
    "AWS::CloudWatch::Alarm",
    "AWS::WAFv2::WebACL",
    "AWS::WAFv2::WebACLAssociation",
    "AWS::S3::BucketPolicy",
    "AWS::OpenSearchService::Domain",
    "AWS::Logs::LogGroup",  # the check reads each function's log from its own file
    "AWS::Logs::SubscriptionFilter",  # events.subscription_event plays CloudWatch Logs' part
)


class StandIn:
    def __init__(self, template: Template) -> None:
        self.template = template
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._server: Any = None
        self._made: dict[str, dict[str | None, Any]] = {}  # logical id -> {None: Ref value, attribute: value}
        template.physical = self.physical

    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            region_name=REGION,
            endpoint_url=self.endpoint,
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

    def start(self) -> StandIn:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        os.environ.setdefault("AWS_ACCOUNT_ID_ENDPOINT_MODE", "disabled")
        moto_patches.apply()
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()
        resources = self.template.resources
        unknown = {r["Type"] for r in resources.values()} - set(MADE) - set(NAMED)
        if unknown:
            raise TemplateError(f"resource types the check does not know: {sorted(unknown)}")
        for kind in MADE:
            for logical_id, resource in resources.items():
                if resource["Type"] == kind and self.template.exists(logical_id):
                    getattr(self, "_" + kind.split("::")[-1].lower())(logical_id, resource["Properties"])
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    # physical names ------------------------------------------------------------------------
    def physical(self, logical_id: str, attribute: str | None) -> Any:
        if logical_id in self._made:
            values = self._made[logical_id]
            if attribute not in values:
                raise TemplateError(f"{logical_id} has no attribute {attribute} in the stand-in")
            return values[attribute]
        resource = self.template.resources.get(logical_id)
        if resource is None:
            raise TemplateError(f"reference to {logical_id}, which the template does not define")
        kind = resource["Type"]
        if kind in MADE:
            raise TemplateError(f"{logical_id} is referred to before it is made (order in MADE)")
        name = f"{STACK}-{logical_id}-lambdacheck"
        if kind == "AWS::Serverless::Function":
            arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
            return {None: name, "Arn": arn}[attribute]
        if kind == "AWS::IAM::Role":
            return {None: name, "Arn": f"arn:aws:iam::{ACCOUNT}:role/{name}"}[attribute]
        if kind == "AWS::SNS::Topic":
            return f"arn:aws:sns:{REGION}:{ACCOUNT}:{name}"
        if kind == "AWS::Logs::LogGroup":
            group = f"/aws/lambda/{name}"
            return {None: group, "Arn": f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:{group}:*"}[attribute]
        if kind == "AWS::OpenSearchService::Domain":
            return {None: name, "DomainEndpoint": f"search-{name}.{REGION}.es.amazonaws.com"}[attribute]
        return name

    # what is made ----------------------------------------------------------------------------
    def _queue(self, logical_id: str, props: dict[str, Any]) -> None:
        props = self.template.resolve(props)
        name = props.pop("QueueName", f"{STACK}-{logical_id}")
        props.pop("Tags", None)
        attributes = {
            k: json.dumps(v) if isinstance(v, dict) else str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in props.items()
        }
        sqs = self.client("sqs")
        url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        self._made[logical_id] = {None: url, "Arn": arn, "QueueName": name, "QueueUrl": url}

    def _queuepolicy(self, logical_id: str, props: dict[str, Any]) -> None:
        props = self.template.resolve(props)
        for url in props["Queues"]:
            self.client("sqs").set_queue_attributes(
                QueueUrl=url, Attributes={"Policy": json.dumps(props["PolicyDocument"])}
            )
        self._made[logical_id] = {None: logical_id}

    def _table(self, logical_id: str, props: dict[str, Any]) -> None:
        props = self.template.resolve(props)
        stream = props.get("StreamSpecification")
        arguments: dict[str, Any] = {
            key: props[key]
            for key in ("TableName", "BillingMode", "AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes")
            if key in props
        }
        if stream:
            arguments["StreamSpecification"] = {"StreamEnabled": True, **stream}
        if props.get("SSESpecification", {}).get("SSEEnabled"):
            arguments["SSESpecification"] = {"Enabled": True}
        dynamodb = self.client("dynamodb")
        table = dynamodb.create_table(**arguments)["TableDescription"]
        ttl = props.get("TimeToLiveSpecification")
        if ttl:
            dynamodb.update_time_to_live(TableName=props["TableName"], TimeToLiveSpecification=ttl)
        self._made[logical_id] = {
            None: props["TableName"],
            "Arn": table["TableArn"],
            "StreamArn": table.get("LatestStreamArn"),
        }

    def _bucket(self, logical_id: str, props: dict[str, Any]) -> None:
        props = self.template.resolve(props)
        name = props.get("BucketName", f"{STACK}-{logical_id}-lambdacheck".lower())
        s3 = self.client("s3")
        s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": REGION})
        if "VersioningConfiguration" in props:
            s3.put_bucket_versioning(Bucket=name, VersioningConfiguration=props["VersioningConfiguration"])
        if "BucketEncryption" in props:
            rules = [  # CloudFormation's name of the rule's default is not the API's
                {("Apply" + k if k == "ServerSideEncryptionByDefault" else k): v for k, v in rule.items()}
                for rule in props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
            ]
            s3.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration={"Rules": rules})
        if "PublicAccessBlockConfiguration" in props:
            blocked = props["PublicAccessBlockConfiguration"]
            s3.put_public_access_block(Bucket=name, PublicAccessBlockConfiguration=blocked)
        if "CorsConfiguration" in props:
            renamed = {"MaxAge": "MaxAgeSeconds", "ExposedHeaders": "ExposeHeaders", "Id": "ID"}
            cors = [{renamed.get(k, k): v for k, v in rule.items()} for rule in props["CorsConfiguration"]["CorsRules"]]
            s3.put_bucket_cors(Bucket=name, CORSConfiguration={"CORSRules": cors})
        queues = props.get("NotificationConfiguration", {}).get("QueueConfigurations", [])
        if queues:
            s3.put_bucket_notification_configuration(
                Bucket=name,
                NotificationConfiguration={
                    "QueueConfigurations": [
                        {
                            "QueueArn": q["Queue"],
                            "Events": [q["Event"]],
                            **(
                                {"Filter": {"Key": {"FilterRules": q["Filter"]["S3Key"]["Rules"]}}}
                                if "Filter" in q
                                else {}
                            ),
                        }
                        for q in queues
                    ]
                },
            )
        self._made[logical_id] = {None: name, "Arn": f"arn:aws:s3:::{name}"}

    def _emailidentity(self, logical_id: str, props: dict[str, Any]) -> None:
        identity = self.template.resolve(props)["EmailIdentity"]
        self.client("sesv2").create_email_identity(EmailIdentity=identity)
        # SES mails the address a link; the check clicks it (moto's SES sends only from verified addresses)
        self.client("ses").verify_email_identity(EmailAddress=identity)
        self._made[logical_id] = {None: identity}

    # what the functions sent -------------------------------------------------------------------
    def sent_mail(self) -> list[Any]:
        from moto.ses.models import ses_backends  # moto runs in this process

        return list(ses_backends[ACCOUNT][REGION].sent_messages)
