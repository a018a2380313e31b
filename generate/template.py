"""infra/merge-template.json (`make generate`), the CloudFormation merge template for
`chalice package --merge-template`, rendered from the table model (chalicelib/store/model.py), so
the deployed table's keys and indexes cannot drift from the code. `make check` and a contract
test check the committed file equals this rendering.

The other resources (bucket, queues, OpenSearch, alarms, the functions' wiring) come from
infra/resources.py, the per-function IAM policies from infra/policies.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chalicelib.store.model import Item
from generate import ROOT, stale_files, write_files
from infra import policies, resources

TARGET = ROOT / "infra" / "merge-template.json"


def table_resource() -> dict[str, Any]:
    schema = Item._get_schema()
    indexes = [
        {"IndexName": gsi["index_name"], "KeySchema": gsi["key_schema"], "Projection": gsi["projection"]}
        for gsi in schema["global_secondary_indexes"]
    ]
    return {
        "Type": "AWS::DynamoDB::Table",
        "DeletionPolicy": "Retain",
        "UpdateReplacePolicy": "Retain",
        "Properties": {
            "TableName": {"Fn::Sub": "pm-${Stage}"},
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": schema["attribute_definitions"],
            "KeySchema": schema["key_schema"],
            "GlobalSecondaryIndexes": indexes,
            "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "DeletionProtectionEnabled": True,
            "SSESpecification": {"SSEEnabled": True},
            "TimeToLiveSpecification": {"AttributeName": "expiresAt", "Enabled": True},
        },
    }


def template() -> dict[str, Any]:
    return {
        "Parameters": {
            "Stage": {
                "Type": "String",
                "AllowedValues": ["dev", "prod"],
                "Default": "dev",
                "Description": "Deployment stage.",
            },
            **resources.parameters(),
        },
        "Conditions": resources.conditions(),
        "Resources": {"Table": table_resource(), **resources.resources(), **policies.resources()},
        "Outputs": {
            "TableName": {"Value": {"Ref": "Table"}},
            "TableStreamArn": {"Value": {"Fn::GetAtt": ["Table", "StreamArn"]}},
            **resources.outputs(),
        },
    }


def render() -> str:
    return json.dumps(template(), indent=2) + "\n"


def stale() -> list[Path]:
    return stale_files({TARGET: render()})


def write() -> list[Path]:
    return write_files({TARGET: render()})
