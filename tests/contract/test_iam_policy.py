"""Least privilege, checked against the code: every AWS call a Lambda function can reach
(tests/contract/aws_calls.py finds them statically) is granted to it by infra/policies.py on
the right resource, nothing else is granted, and the policies land on the roles chalice
generates (chalice's template is built here from its own internals, without installing
the requirements as `chalice package` does)."""

from __future__ import annotations

import ast
import copy
import json
import os
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from generate import template as render
from infra import policies
from tests.contract.aws_calls import DISPATCH, ROOT, Need, Program

API = "APIHandler"
MCP = policies.MCP_FUNCTION
CHALICE_DECORATORS = {
    "on_dynamodb_record": "stream",
    "on_sqs_message": "queue",
    "schedule": "schedule",
    "lambda_function": "logs",  # WriteRequestLogs: invoked by a CloudWatch Logs subscription
}

# What each resource kind of aws_calls.py is in the template.
RESOURCES: dict[str, list[Any]] = {
    "table": [policies.TABLE],
    "index": [policies.TABLE_INDEXES],
    "bucket": [policies.UPLOAD_BUCKET],
    "objects": [policies.UPLOAD_OBJECTS],
    "queues": list(policies.QUEUES),
    "delivery_queue": [policies.DELIVERY_QUEUE],
    "export_queue": [policies.EXPORT_QUEUE],
    "sandbox_queue": [policies.SANDBOX_QUEUE],
    "export_objects": [policies.EXPORT_OBJECTS],
    "search:_search": policies.SEARCH_PATHS,
    "search:_count": policies.COUNT_PATHS,
    "entities:_search": [policies.ENTITY_SEARCH],
    "entities:index": [policies.ENTITY_INDEX],
    "entities:_bulk": [policies.ENTITY_BULK],
    "mail_identity": [policies.MAIL_IDENTITY],
    "search_models": [policies.SEARCH_MODELS],
}

# Calls a function's code holds but that function never makes, each with the reason (and a
# test below that keeps the reason true).
NEVER: dict[str, frozenset[tuple[str, str]]] = {
    # sweep() deletes orphans only with delete_orphans=True, which only the CLI passes
    "SweepUploads": frozenset({("chalicelib.uploads.sweep:sweep", "chalicelib.uploads.files:delete")}),
    # the analysis lets both HTTP functions run every registered operation, but the MCP function's
    # tools are the v2 operations that need a key (registry.domain_operations): it never runs
    # sign-up, which mails a code (ses:SendEmail)
    MCP: frozenset({("chalicelib.resources.platform:", "chalicelib.resources.platform:signup")}),
}


# What a resource kind is for one function whose calls of that kind all go to part of it, each with
# the reason. The sandbox worker's S3 calls are the document operations' (uploads/files.py put,
# delete, versions, download_url, presigned_post), always on a key of direct_key (<tenant>/documents/)
# or upload_key (<tenant>/uploads/): never an export's file (test below).
RESOURCES_OF: dict[str, dict[str, list[Any]]] = {
    "RunSandboxes": {"objects": [policies.DOCUMENT_OBJECTS, policies.BULK_UPLOAD_OBJECTS]},
}


def resources_of(function: str, kind: str) -> list[Any]:
    return RESOURCES_OF.get(function, {}).get(kind) or RESOURCES[kind]


@cache
def sandbox_operations() -> frozenset[str]:
    """The operations the sandbox worker runs in its own process (sandbox/seed.py InProcess): those
    whose names the seed's load (exports/load.py), the seed and the reset (sandbox/seed.py, reset.py:
    a job, sandbox/lifecycle.py run_job, runs nothing else) spell out
    (aliases.upsert, documents.upload, documents.show, the bulk upload's), every upsert (a line's
    `upsert`), and every type's delete, restore and update command the reset picks
    (registry.lifecycle_operation, declare.UPDATINGS)."""
    from chalicelib import registry, resources
    from chalicelib.declare import UPDATINGS
    from chalicelib.exports import lines

    resources.load_all()
    found = {op.name for op in registry.REGISTRY.values() if op.upserts}
    for path in ("chalicelib/exports/load.py", "chalicelib/sandbox/seed.py", "chalicelib/sandbox/reset.py"):
        tree = ast.parse((ROOT / path).read_text())
        found |= {  # dotted names only: bare words that name an operation (`status`) are keys there too
            n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and "." in str(n.value)
        } & set(registry.REGISTRY)
    for kind in lines.kinds():
        for verb in ("delete", "restore"):
            operation = registry.lifecycle_operation(kind.etype.name, verb)
            found |= {operation[0]} if operation else set()
    found |= {updating.op.name for updating in UPDATINGS.values()}
    return frozenset(found)


def handler_unit(name: str) -> str:
    """The analysis's unit of an operation's handler (`module:outer.inner` for a closure)."""
    from chalicelib.registry import REGISTRY

    handler = REGISTRY[name].handler
    return f"{handler.__module__}:{handler.__qualname__.replace('.<locals>', '')}"


# Functions that run some of the registry's operations in their own process: those operations.
IN_PROCESS = {"RunSandboxes": sandbox_operations}


@cache
def program() -> Program:
    return Program()


@cache
def handlers() -> dict[str, tuple[str, str | None, str | None]]:
    """Function logical id -> (entry module, handler unit, event source kind): chalice's from
    app.py, and the MCP function (mcp_app.py, HTTP only)."""
    from chalice.utils import to_cfn_resource_name

    found: dict[str, tuple[str, str | None, str | None]] = {API: ("app", None, None), MCP: ("mcp_app", None, None)}
    for node in ast.parse((ROOT / "app.py").read_text()).body:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and decorator.func.attr in CHALICE_DECORATORS
                ):
                    found[to_cfn_resource_name(node.name)] = (
                        "app",
                        f"app:{node.name}",
                        CHALICE_DECORATORS[decorator.func.attr],
                    )
    return found


@cache
def needs_of(function: str) -> tuple[Need, ...]:
    entry, handler, _ = handlers()[function]
    prog = program()
    operations = frozenset(handler_unit(name) for name in IN_PROCESS[function]()) if function in IN_PROCESS else None
    reach = prog.function_reach(
        entry, handler, skip=NEVER.get(function, frozenset()), operations=operations or frozenset()
    )
    return tuple(prog.needs(reach))


def statements(function: str) -> Iterator[dict[str, Any]]:
    """The function's statements as rendered (a conditional statement counted as present)."""
    role = policies.ROLES[function]
    document = render.template()["Resources"][role]["Properties"]["Policies"][0]["PolicyDocument"]
    for statement in document["Statement"]:
        yield statement["Fn::If"][1] if "Fn::If" in statement else statement


def granted(function: str) -> set[tuple[str, str]]:
    """(action, resource as JSON) pairs the function's policy allows."""
    found = set()
    for statement in statements(function):
        assert statement["Effect"] == "Allow"
        found |= {
            (action, json.dumps(resource, sort_keys=True))
            for action in statement["Action"]
            for resource in statement["Resource"]
        }
    return found


def _key(resource: Any) -> str:
    return json.dumps(resource, sort_keys=True)


def test_the_functions_are_the_ones_app_py_declares() -> None:
    assert set(handlers()) == set(policies.ROLES), (
        "infra/policies.py ROLES must name every function of app.py and the MCP function"
    )
    assert set(policies.CODE) == set(policies.ROLES)
    kinds = {function: kind for function, (_, _, kind) in handlers().items()}
    assert {f for f, k in kinds.items() if k in ("stream", "queue", "logs")} == set(policies.EVENT_SOURCES)


@pytest.mark.slow
def test_every_aws_call_is_understood() -> None:
    prog = program()
    assert prog.unmapped() == [], (
        "map these calls in tests/contract/aws_calls.py (boto3 / pynamodb / OpenSearch tables)"
    )
    assert prog.all_needs(), "the analysis found no AWS calls at all: it is broken"
    unclassified = sorted(
        {f"{where}: {receiver}" for _, receiver, where in prog.registrations() if receiver not in DISPATCH}
    )
    assert unclassified == [], (
        "functions registered at import through receivers DISPATCH does not classify (tests/contract/aws_calls.py)"
    )
    dynamic = [where for where in prog.dynamic_imports if not where.startswith("chalicelib/resources/__init__.py:")]
    assert dynamic == [], "dynamic imports the analysis cannot follow"


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["app", "mcp_app"])
def test_nothing_calls_aws_while_an_entry_point_is_imported(entry: str) -> None:
    prog = program()
    assert [f"{n.where} {n.call}" for n in prog.needs(prog.import_time(entry))] == []


@pytest.mark.parametrize("function", sorted(policies.ROLES))
def test_every_call_a_function_can_reach_is_granted(function: str) -> None:
    held = granted(function)
    missing = []
    for need in needs_of(function):
        for action in need.actions:
            if not any((action, _key(resource)) in held for resource in resources_of(function, need.resource)):
                missing.append(f"{need.where}: {need.call} needs {action} on {need.resource}")
    assert missing == [], f"{function} ({policies.ROLES[function]}) lacks:\n" + "\n".join(missing)


@pytest.mark.parametrize("function", sorted(policies.ROLES))
def test_nothing_is_granted_that_no_call_needs(function: str) -> None:
    needed = {
        (action, _key(resource))
        for need in needs_of(function)
        for action in need.actions
        for resource in resources_of(function, need.resource)
    }
    platform = {
        (action, _key(resource))
        for grant in [*policies.EVENT_SOURCES.get(function, []), *policies.runtime(function)]
        for action in grant.actions
        for resource in grant.resources
    }
    extra = sorted(f"{action} on {resource}" for action, resource in granted(function) - needed - platform)
    assert extra == [], f"{function} is granted what none of its code calls:\n" + "\n".join(extra)


@pytest.mark.parametrize("function", sorted(policies.ROLES))
def test_event_source_logs_and_traces(function: str) -> None:
    held = granted(function)
    _, _, kind = handlers()[function]
    if kind == "stream":
        stream = ("dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator")
        assert {(a, _key(policies.TABLE_STREAM)) for a in stream} <= held
        assert ("dynamodb:ListStreams", _key(policies.TABLE_STREAMS)) in held
    if kind == "queue":
        queue = ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")
        source = {
            "OnUpload": policies.UPLOAD_QUEUE,
            "DeliverWebhooks": policies.DELIVERY_QUEUE,
            "RunExports": policies.EXPORT_QUEUE,
            "RunSandboxes": policies.SANDBOX_QUEUE,
        }[function]
        assert {(a, _key(source)) for a in queue} <= held
    if kind == "logs":  # a batch that failed its retries goes to the invocation's on-failure destination
        assert ("sqs:SendMessage", _key(policies.REQUEST_LOG_FAILURES)) in held
    logs = _key(policies.log_group(function))
    assert {("logs:CreateLogGroup", logs), ("logs:CreateLogStream", logs), ("logs:PutLogEvents", logs)} <= held
    assert {("xray:PutTraceSegments", '"*"'), ("xray:PutTelemetryRecords", '"*"')} <= held


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.parametrize("function", sorted(policies.ROLES))
def test_no_wildcards_and_no_literal_arns(function: str) -> None:
    for statement in statements(function):
        assert all("*" not in action for action in statement["Action"]), statement
        if "*" in statement["Resource"]:
            assert all(action.startswith("xray:") for action in statement["Action"]), (
                f"only X-Ray has no resource-level permissions: {statement}"
            )
            assert statement["Resource"] == ["*"]
        for resource in statement["Resource"]:
            assert resource == "*" or set(resource) <= {"Fn::GetAtt", "Fn::Sub"}, (
                f"resources are references: {resource}"
            )
    for text in _strings(policies.document(function)):
        assert not re.search(r"\d{12}", text), f"account id in {text!r}"
        assert not re.search(r"\b[a-z]{2}(-gov)?-[a-z]+-\d\b", text), f"region in {text!r}"
        assert "arn:aws" not in text, f"literal partition in {text!r}"
        if text.startswith("arn:"):
            assert text.startswith("arn:${AWS::Partition}:"), text


def test_the_schedule_never_deletes_orphans() -> None:
    """The reason NEVER gives for SweepUploads: app.py calls sweep() without delete_orphans."""
    calls = [
        node
        for node in ast.walk(ast.parse((ROOT / "app.py").read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sweep"
    ]
    assert calls and all(not any(k.arg in ("delete_orphans", None) for k in call.keywords) for call in calls)
    prog = program()
    for caller, callee in NEVER["SweepUploads"]:
        assert any(target == callee for target, *_ in prog.units[caller].edges), (
            f"{caller} no longer calls {callee}: drop it from NEVER"
        )


def test_the_mcp_function_never_signs_up() -> None:
    """The reason NEVER gives for the MCP function: sign-up is no domain operation, and the MCP
    code finds operations through registry.domain_operations only (mcp/catalogue.py), never by
    the registry's table or the REST routes."""
    from chalicelib import registry, resources

    resources.load_all()
    assert "signup" in registry.REGISTRY
    assert "signup" not in {op.name for op in registry.domain_operations()}
    allowed = {"domain_operations", "Operation"}
    for path in [ROOT / "mcp_app.py", *sorted((ROOT / "chalicelib" / "mcp").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "registry":
                assert node.attr in allowed, f"{path.name}:{node.lineno} registry.{node.attr}: check NEVER[{MCP}]"
            if isinstance(node, ast.ImportFrom) and node.module == "chalicelib.registry":
                assert {a.name for a in node.names} <= allowed, f"{path.name}:{node.lineno}: check NEVER[{MCP}]"
            if isinstance(node, ast.Attribute) and node.attr == "register_routes":
                raise AssertionError(f"{path.name}:{node.lineno} serves the REST routes: check NEVER[{MCP}]")
    prog = program()
    for caller, callee in NEVER[MCP]:
        assert any(target == callee for target, *_ in prog.units[caller].edges), (
            f"{caller} no longer registers {callee}: drop it from NEVER"
        )


# --- chalice's template ---------------------------------------------------------------------


@cache
def chalice_template(stage: str) -> dict[str, Any]:
    """What `chalice package --stage <stage>` writes as sam.json, before the merge, without its
    dependency step (pip): chalice's own resource graph, build steps and SAM generator."""
    import botocore.session
    from chalice.awsclient import TypedAWSClient
    from chalice.cli.factory import CLIFactory
    from chalice.deploy.appgraph import ApplicationGraphBuilder, DependencyBuilder
    from chalice.deploy.deployer import (
        BuildStage,
        InjectDefaults,
        LambdaEventSourcePolicyInjector,
        PolicyGenerator,
        SwaggerBuilder,
        WebsocketPolicyInjector,
    )
    from chalice.deploy.swagger import CFNSwaggerGenerator
    from chalice.package import PackageOptions, ResourceBuilder, SAMTemplateGenerator
    from chalice.policy import AppPolicyGenerator
    from chalice.utils import OSUtils

    os.environ.setdefault("AWS_DEFAULT_REGION", "eu-central-1")  # chalice wants a region, not an account
    config = CLIFactory(project_dir=str(ROOT)).create_config_obj(chalice_stage_name=stage)
    osutils = OSUtils()
    steps = [
        InjectDefaults(),
        PolicyGenerator(policy_gen=AppPolicyGenerator(osutils=osutils), osutils=osutils),
        SwaggerBuilder(swagger_generator=CFNSwaggerGenerator()),
        LambdaEventSourcePolicyInjector(),
        WebsocketPolicyInjector(),
    ]
    resources = ResourceBuilder(
        ApplicationGraphBuilder(), DependencyBuilder(), BuildStage(steps=steps)
    ).construct_resources(config, stage)
    template: dict[str, Any] = SAMTemplateGenerator(
        config, PackageOptions(TypedAWSClient(botocore.session.get_session()))
    ).generate(resources)
    return template


def merged(stage: str) -> dict[str, Any]:
    from chalice.package import TemplateDeepMerger

    return TemplateDeepMerger().merge(copy.deepcopy(render.template()), copy.deepcopy(chalice_template(stage)))


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_chalice_makes_the_roles_the_policies_replace(stage: str) -> None:
    generated = chalice_template(stage)["Resources"]
    functions = {name for name, r in generated.items() if r["Type"] == "AWS::Serverless::Function"}
    assert functions == set(policies.CHALICE_ROLES)
    for function, role in policies.CHALICE_ROLES.items():
        assert generated[function]["Properties"]["Role"] == {"Fn::GetAtt": [role, "Arn"]}
        assert generated[role]["Type"] == "AWS::IAM::Role"
        placeholder = generated[role]["Properties"]["Policies"]
        assert [p["PolicyDocument"]["Statement"][0]["Effect"] for p in placeholder] == ["Deny"], (
            "chalice's policy is the deny-all placeholder"
        )
    for logical_id, patch in policies.resources().items():
        assert logical_id in generated or "Type" in patch, (
            f"{logical_id} is not in chalice's template: the merge would add a resource without a Type"
        )


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_after_the_merge_each_role_holds_exactly_its_policy(stage: str) -> None:
    template = merged(stage)
    resources = template["Resources"]
    for function, role in policies.ROLES.items():
        assert resources[role]["Properties"]["Policies"] == [
            {"PolicyName": f"{role}Policy", "PolicyDocument": policies.document(function)}
        ]
        assert resources[role]["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
            "Service": "lambda.amazonaws.com"
        }
    # every reference in the policies names a resource of the merged template (or a pseudo parameter)
    names = set(resources) | set(template.get("Parameters", {}))
    for text in _strings(policies.resources()):
        for name in re.findall(r"\$\{([A-Za-z0-9:]+)(?:\.[A-Za-z]+)?\}", text):
            assert name.startswith("AWS::") or name in names, f"{name} (in {text}) is not in the template"
    mcp = resources[MCP]["Properties"]
    assert mcp["Role"] == {"Fn::GetAtt": [policies.ROLES[MCP], "Arn"]} and mcp["Handler"] == "mcp_app.app"
    for role in policies.ROLES.values():
        for statement in resources[role]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]:
            if "Fn::If" in statement:
                assert statement["Fn::If"][0] in template.get("Conditions", {}), statement
                statement = statement["Fn::If"][1]
            for resource in statement["Resource"]:
                if isinstance(resource, dict) and "Fn::GetAtt" in resource:
                    assert resource["Fn::GetAtt"][0] in resources, resource


def test_the_sandbox_worker_writes_only_documents_files() -> None:
    """The reason RESOURCES_OF gives for RunSandboxes: its S3 object calls are all uploads/files.py's,
    whose keys are a tenant's documents/ and uploads/ (the exports' files, exports/sink.py and
    archive.py, are out of its reach), and every operation IN_PROCESS names is a handler the analysis knows."""
    from chalicelib.store.keys import TENANT_ID_PREFIX
    from chalicelib.uploads import files

    objects = [need for need in needs_of("RunSandboxes") if need.resource == "objects"]
    assert objects and {need.where.split(":")[0] for need in objects} == {"chalicelib/uploads/files.py"}
    assert not [need for need in needs_of("RunSandboxes") if need.resource == "export_objects"]
    assert files.direct_key("ten_1", "doc_2") == "ten_1/documents/doc_2" and TENANT_ID_PREFIX == "ten"
    assert files.upload_key("ten_1", "upb_2", "doc_3") == "ten_1/uploads/upb_2/doc_3"
    assert {"documents.upload", "aliases.upsert", "objects.upsert", "contacts.delete"} <= sandbox_operations()
    assert all(handler_unit(name) in program().units for name in sandbox_operations())
