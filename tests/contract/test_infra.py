"""The merge template wires everything by reference, and packaging is reproducible.

The full check runs in CI: `make lint-template` packages with chalice and runs cfn-lint on
the result (zero errors)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from generate import template as render
from infra import package, resources

ROOT = Path(__file__).resolve().parents[2]

TEMPLATE = render.template()


def test_no_literal_arns_or_account_ids_in_the_merge_template() -> None:
    text = json.dumps(TEMPLATE)
    assert "arn:aws:" not in text and "000000000000" not in text and "eu-central-1" not in text


def test_functions_get_their_resources_by_reference() -> None:
    for name in (*resources.FUNCTIONS, resources.MCP_FUNCTION):
        variables = TEMPLATE["Resources"][name]["Properties"]["Environment"]["Variables"]
        assert variables["PM_TABLE_NAME"] == {"Ref": "Table"}
        assert variables["PM_UPLOAD_BUCKET"] == {"Ref": "UploadBucket"}
    stream = TEMPLATE["Resources"]["OnTableChange"]["Properties"]["Events"]["OnTableChangeDynamodbEventSource"][
        "Properties"
    ]
    assert stream["Stream"] == {"Fn::GetAtt": ["Table", "StreamArn"]} and stream["FunctionResponseTypes"] == [
        "ReportBatchItemFailures"
    ]
    queue = TEMPLATE["Resources"]["OnUpload"]["Properties"]["Events"]["OnUploadSqsEventSource"]["Properties"]
    assert queue["Queue"] == {"Fn::GetAtt": ["UploadQueue", "Arn"]} and queue["FunctionResponseTypes"] == [
        "ReportBatchItemFailures"
    ]


def test_the_upload_path_is_private_versioned_and_has_a_dead_letter_queue() -> None:
    bucket = TEMPLATE["Resources"]["UploadBucket"]["Properties"]
    assert bucket["VersioningConfiguration"] == {"Status": "Enabled"}
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    assert bucket["NotificationConfiguration"]["QueueConfigurations"][0]["Queue"] == {
        "Fn::GetAtt": ["UploadQueue", "Arn"]
    }
    queue = TEMPLATE["Resources"]["UploadQueue"]["Properties"]
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["UploadDeadLetterQueue", "Arn"]}
    assert queue["VisibilityTimeout"] >= 6 * TEMPLATE["Resources"]["OnUpload"]["Properties"]["Timeout"]
    alarm = TEMPLATE["Resources"]["UploadDeadLettersAlarm"]["Properties"]
    assert alarm["Dimensions"][0]["Value"] == {"Fn::GetAtt": ["UploadDeadLetterQueue", "QueueName"]}


def test_the_upload_worker_has_tmp_for_its_worst_batch() -> None:
    """Issue 16, finding 2: ten 100 MiB files spooled at once need ~1 GB of /tmp, twice Lambda's default."""
    from chalicelib.uploads import files, register

    worker = TEMPLATE["Resources"]["OnUpload"]["Properties"]
    batch = worker["Events"]["OnUploadSqsEventSource"]["Properties"]["BatchSize"]
    assert (
        batch == register.BATCH_SIZE >= register.PARALLEL
    )  # the size the worker (and app.py's event source) was built for
    assert worker["EphemeralStorage"]["Size"] * files.MiB >= batch * files.MAX_BULK_BYTES
    assert 512 <= worker["EphemeralStorage"]["Size"] <= 10240  # what Lambda allows


def test_webhook_deliveries_run_on_a_fifo_queue_with_a_fifo_dead_letter_queue() -> None:
    """The queue as the code expects it (events/delivery_queue.py), its worker with partial
    batch failures and bounded concurrency, and every function told where the queues are."""
    from chalicelib.events import delivery_queue

    queue = TEMPLATE["Resources"]["DeliveryQueue"]["Properties"]
    dead = TEMPLATE["Resources"]["DeliveryDeadLetterQueue"]["Properties"]
    assert queue["FifoQueue"] is True and dead["FifoQueue"] is True, (
        "a FIFO queue's dead letters must go to a FIFO queue"
    )
    assert queue["QueueName"] == {"Fn::Sub": "pm-${Stage}-deliveries.fifo"}
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": ["DeliveryDeadLetterQueue", "Arn"]},
        "maxReceiveCount": delivery_queue.MAX_RECEIVES,
    }
    assert str(queue["VisibilityTimeout"]) == delivery_queue.QUEUE_SETTINGS["VisibilityTimeout"]
    assert queue["VisibilityTimeout"] >= 3 * TEMPLATE["Resources"]["DeliverWebhooks"]["Properties"]["Timeout"]
    assert {k: queue[k] for k in delivery_queue.FIFO_SETTINGS} == delivery_queue.FIFO_SETTINGS
    source = TEMPLATE["Resources"]["DeliverWebhooks"]["Properties"]["Events"]["DeliverWebhooksSqsEventSource"][
        "Properties"
    ]
    assert source["Queue"] == {"Fn::GetAtt": ["DeliveryQueue", "Arn"]} and source["FunctionResponseTypes"] == [
        "ReportBatchItemFailures"
    ]
    assert source["ScalingConfig"] == {"MaximumConcurrency": {"Ref": "DeliveryConcurrency"}}
    for name in resources.FUNCTIONS:
        variables = TEMPLATE["Resources"][name]["Properties"]["Environment"]["Variables"]
        assert variables["PM_DELIVERY_QUEUE_URL"] == {"Ref": "DeliveryQueue"}
        assert variables["PM_STREAM_DLQ_URL"] == {"Ref": "ChangeStreamFailureQueue"}
    assert "SendWebhooks" not in TEMPLATE["Resources"], "the per-minute webhook scheduler is gone"


def test_api_gateway_answers_in_problem_json_like_the_app() -> None:
    """Substituting what API Gateway fills in ($context.*) leaves JSON problems; an unrouted
    path is the app's own no_route 404."""
    answers = TEMPLATE["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["x-amazon-apigateway-gateway-responses"]
    filled = {
        "$context.httpMethod": "PUT",
        "$context.path": "/x",
        "$context.requestId": "r-1",
        "$context.error.messageString": '"Limit Exceeded"',
    }
    problems = {}
    for kind, answer in answers.items():
        assert answer["responseParameters"] == {"gatewayresponse.header.Content-Type": "'application/problem+json'"}
        text = answer["responseTemplates"]["application/json"]
        for variable, value in filled.items():
            text = text.replace(variable, value)
        problems[kind] = problem = json.loads(text)
        assert (
            problem["type"] == f"urn:pm:problem:{problem['code']}"
            and problem["requestId"] == "r-1"
            and problem["detail"]
        )
    assert answers["MISSING_AUTHENTICATION_TOKEN"]["statusCode"] == "404"
    assert (
        problems["MISSING_AUTHENTICATION_TOKEN"]["code"] == "no_route"
        and "PUT /x" in problems["MISSING_AUTHENTICATION_TOKEN"]["detail"]
    )
    assert problems["DEFAULT_4XX"]["detail"] == "Limit Exceeded"


def test_the_mcp_path_goes_to_the_mcp_function() -> None:
    """The REST API (chalice's) serves the MCP path through the MCP function, its own bundle;
    the REST function's app has no such route."""
    import app
    from chalicelib.paths import MCP as PATH

    assert PATH not in app.app.routes
    path = TEMPLATE["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]["paths"][PATH]
    assert set(path) == {"get", "post", "delete"}
    for method in path.values():
        assert "${McpHandler.Arn}" in method["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    function = TEMPLATE["Resources"][resources.MCP_FUNCTION]
    assert function["Type"] == "AWS::Serverless::Function" and function["Properties"]["CodeUri"] == resources.MCP_BUNDLE
    assert function["Properties"]["Handler"] == "mcp_app.app"
    permission = TEMPLATE["Resources"]["McpHandlerInvokePermission"]["Properties"]
    assert (
        permission["FunctionName"] == {"Ref": resources.MCP_FUNCTION}
        and permission["Principal"] == "apigateway.amazonaws.com"
    )
    assert TEMPLATE["Resources"]["McpHandlerErrorsAlarm"]["Properties"]["Dimensions"][0]["Value"] == {
        "Ref": resources.MCP_FUNCTION
    }


def test_the_rewritten_bundle_is_trimmed_sorted_timeless_and_compiled(tmp_path: Path) -> None:
    bundle = tmp_path / "deployment.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        for name in (
            "zeta/a.py",
            "grpc/__init__.py",
            "app.py",
            "google/protobuf/x.py",
            "grpcio-1.0.dist-info/METADATA",
            "botocore/data/ec2/2016-11-15/service-2.json.gz",
            "numpy/_core/tests/test_multiarray.py",
            "numpy/_core/_simd.cpython-311-x86_64-linux-gnu.so",
            "numpy/__init__.pyi",
            "numpy/f2py/__init__.py",
        ):
            archive.writestr(name, f"# {name}\n")
        archive.writestr("alpha/b.py", "VALUE = 'compiled'\n")
        archive.writestr("botocore/data/endpoints.json", "{}")
        archive.writestr("botocore/data/sqs/2012-11-05/service-2.json.gz", "kept")
        archive.writestr("alpha/py2.py", "print 'Python 2'\n")
    sizes = package.rewrite_zip(bundle)
    first = bundle.read_bytes()
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        times = {info.date_time for info in archive.infolist()}
        archive.extractall(tmp_path / "task")
    tag = sys.implementation.cache_tag
    compiled = [f"alpha/__pycache__/b.{tag}.pyc", f"__pycache__/app.{tag}.pyc", f"zeta/__pycache__/a.{tag}.pyc"]
    kept_data = ["botocore/data/endpoints.json", "botocore/data/sqs/2012-11-05/service-2.json.gz"]
    assert names == sorted(["alpha/b.py", "alpha/py2.py", "app.py", "zeta/a.py", *compiled, *kept_data])
    assert times == {package.FIXED_TIME}
    assert set(sizes) == {"alpha", "app.py", "__pycache__", "zeta", "botocore"}
    package.rewrite_zip(bundle)
    assert bundle.read_bytes() == first, "rewriting again changes nothing"
    # The import takes the shipped bytecode without looking at the source (as Lambda will):
    (tmp_path / "task" / "alpha" / "b.py").write_text("VALUE = 'source'\n")
    imported = subprocess.run(
        [sys.executable, "-c", "import alpha.b; print(alpha.b.VALUE)"],
        cwd=tmp_path / "task",
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "compiled"


def _waf_matches(statement: dict[str, Any], path: str, method: str = "POST") -> bool:
    """What WAF decides for a request's method and URI path, for the statements the template uses."""
    if "OrStatement" in statement:
        return any(_waf_matches(s, path, method) for s in statement["OrStatement"]["Statements"])
    if "AndStatement" in statement:
        return all(_waf_matches(s, path, method) for s in statement["AndStatement"]["Statements"])
    match = statement["ByteMatchStatement"]
    assert match["FieldToMatch"] in ({"UriPath": {}}, {"Method": {}})
    found = path if "UriPath" in match["FieldToMatch"] else method
    for transformation in sorted(match["TextTransformations"], key=lambda t: t["Priority"]):
        assert transformation["Type"] == "LOWERCASE", transformation
        found = found.lower()
    wanted = match["SearchString"]
    return {
        "CONTAINS": wanted in found,
        "ENDS_WITH": found.endswith(wanted),
        "STARTS_WITH": found.startswith(wanted),
        "EXACTLY": found == wanted,
    }[match["PositionalConstraint"]]


def _firewall_rules() -> dict[str, tuple[str, dict[str, Any]]]:
    """The web ACL's rules by name, each with the condition it is present under."""
    found = {}
    for entry in TEMPLATE["Resources"]["SignupFirewall"]["Properties"]["Rules"]:
        condition, rule, otherwise = entry["Fn::If"]
        assert otherwise == {"Ref": "AWS::NoValue"}, entry
        found[rule["Name"]] = (condition, rule)
    return found


def test_no_caller_can_take_the_whole_account() -> None:
    """The stage throttles all callers, the API function's concurrency is reserved (and so
    capped), leaving the stream, delivery and upload functions room; sign-ups may be
    rate-limited per source address by a WAF rule, optional by parameter."""
    api = TEMPLATE["Resources"]["RestAPI"]["Properties"]
    assert api["MethodSettings"] == [
        {
            "ResourcePath": "/*",
            "HttpMethod": "*",
            "ThrottlingRateLimit": {"Ref": "ApiRateLimit"},
            "ThrottlingBurstLimit": {"Ref": "ApiBurstLimit"},
        }
    ]
    reserved = TEMPLATE["Resources"]["APIHandler"]["Properties"]["ReservedConcurrentExecutions"]
    assert reserved == {"Fn::If": ["ReservesApiConcurrency", {"Ref": "ApiConcurrency"}, {"Ref": "AWS::NoValue"}]}
    parameters = TEMPLATE["Parameters"]
    assert parameters["ApiConcurrency"]["Default"] > parameters["DeliveryConcurrency"]["Default"] > 0
    acl = TEMPLATE["Resources"]["SignupFirewall"]
    assert acl["Condition"] == "HasFirewall" and parameters["SignupRateLimit"]["Default"] == 0
    condition, rule = _firewall_rules()["signups-per-source"]
    assert condition == "HasSignupFirewall"
    assert TEMPLATE["Conditions"][condition] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "SignupRateLimit"}, 0]}]}
    assert rule["Statement"]["RateBasedStatement"]["Limit"] == {"Ref": "SignupRateLimit"}
    # both steps of a sign-up count: the sign-up (mails a code) and its confirmation (code attempts)
    scope = rule["Statement"]["RateBasedStatement"]["ScopeDownStatement"]
    for path in ("/dev/api/platform/v1/command/signup", "/prod/api/platform/v1/command/signup.confirm"):
        for variant in (path, path + "/", path.upper()):
            assert _waf_matches(scope, variant), variant
    for path in ("/dev/api/platform/v1/query/version", "/dev/propertymanagement/v2/command/contacts.create"):
        assert not _waf_matches(scope, path), path
    # the console's forms that mail or check a code count when posted, not when viewed
    for step in ("signup", "signup/confirm", "signin", "signin/code"):
        path = f"/dev/console/{step}"
        assert _waf_matches(scope, path, "POST") and not _waf_matches(scope, path, "GET"), path
    assert not _waf_matches(scope, "/dev/console/keys", "POST")
    assert rule["Action"] == {"Block": {"CustomResponse": {"ResponseCode": 429}}}
    association = TEMPLATE["Resources"]["SignupFirewallAssociation"]
    assert association["Condition"] == "HasFirewall" and association["Properties"]["WebACLArn"] == {
        "Fn::GetAtt": ["SignupFirewall", "Arn"]
    }


def test_a_waf_rule_may_limit_every_source_address_on_every_path() -> None:
    """Optional, like the sign-up rule (issue 28, finding 7): a source address past
    SourceRateLimit requests in 5 minutes, on any path, is refused (429) before API Gateway's
    stage throttle, which every tenant shares, is spent on it. The web ACL exists when either
    rule is asked for, and holds only the rules asked for."""
    parameters, conditions = TEMPLATE["Parameters"], TEMPLATE["Conditions"]
    assert parameters["SourceRateLimit"]["Type"] == "Number" and parameters["SourceRateLimit"]["Default"] == 0
    assert conditions["HasSourceRateRule"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "SourceRateLimit"}, 0]}]}
    assert conditions["HasFirewall"] == {
        "Fn::Or": [{"Condition": "HasSignupFirewall"}, {"Condition": "HasSourceRateRule"}]
    }
    rules = _firewall_rules()
    condition, rule = rules["requests-per-source"]
    assert condition == "HasSourceRateRule"
    statement = rule["Statement"]["RateBasedStatement"]
    assert statement == {"Limit": {"Ref": "SourceRateLimit"}, "EvaluationWindowSec": 300, "AggregateKeyType": "IP"}
    assert rule["Action"] == {"Block": {"CustomResponse": {"ResponseCode": 429}}}
    assert rule["VisibilityConfig"]["CloudWatchMetricsEnabled"] is True
    priorities = [r["Priority"] for _, r in rules.values()]
    assert len(set(priorities)) == len(priorities)
    names = [r["VisibilityConfig"]["MetricName"] for _, r in rules.values()]
    assert len(set(names)) == len(names)


def test_the_change_stream_invokes_the_function_only_for_what_it_handles() -> None:
    """The event source's filter passes entity, tenant and integration-connection writes only,
    the records from_record reads; anything else (request logs, rate counters, delivery state)
    it would drop anyway."""
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

    from chalicelib.events import changes

    def from_record(record: dict[str, Any]) -> changes.Change | None:  # as the stream handler reads it
        return changes.from_record(DynamoDBRecord(record))

    source = TEMPLATE["Resources"]["OnTableChange"]["Properties"]["Events"]["OnTableChangeDynamodbEventSource"][
        "Properties"
    ]
    (only,) = source["FilterCriteria"]["Filters"]
    assert json.loads(only["Pattern"]) == {
        "dynamodb": {
            "Keys": {"SK": {"S": ["entity", "tenant", "oauthgrant", {"prefix": "tenant#"}, {"prefix": "ten_"}]}}
        }
    }
    image = {
        "PK": {"S": "ten_1#con_1"},
        "SK": {"S": "requests"},
        "type": {"S": "contact"},
        "tenantId": {"S": "ten_1"},
        "id": {"S": "con_1"},
    }
    record = {
        "eventName": "INSERT",
        "dynamodb": {"Keys": {"PK": image["PK"], "SK": image["SK"]}, "NewImage": image, "SequenceNumber": "1"},
    }
    assert from_record(record) is None
    # every kind from_record audits passes the filter (exact values or a prefix, as Lambda matches them)
    allowed = json.loads(only["Pattern"])["dynamodb"]["Keys"]["SK"]["S"]
    audited = [("ten_1#con_1", "entity", "contact"), ("ten_1#key_1", "entity", "apiKey"), ("ten_1", "tenant", "tenant")]
    audited.append(("integration#int_1", "tenant#ten_1", "integrationConnection"))
    audited.append(("ten_1#grt_1", "oauthgrant", "oauthGrant"))
    for pk, sk, kind in audited:
        image = {"PK": {"S": pk}, "SK": {"S": sk}, "type": {"S": kind}, "tenantId": {"S": "ten_1"}, "id": {"S": "x_1"}}
        image["updatedAt"] = {"S": "2026-01-01T00:00:00Z"}
        record = {
            "eventName": "INSERT",
            "dynamodb": {"Keys": {"PK": image["PK"], "SK": image["SK"]}, "NewImage": image, "SequenceNumber": "1"},
        }
        assert from_record(record) is not None, kind
        assert any(sk == a if isinstance(a, str) else sk.startswith(a["prefix"]) for a in allowed), kind
    # the table's TTL removing an item (an OAuth grant's access key a week after its expiry) is no change
    ttl = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    removed = {**record, "eventName": "REMOVE", "userIdentity": ttl}
    removed["dynamodb"] = {**record["dynamodb"], "OldImage": image, "NewImage": None}
    assert from_record({**removed, "userIdentity": None}) is not None and from_record(removed) is None


def test_every_aws_client_the_code_makes_has_its_service_model_in_the_bundles() -> None:
    """The bundles keep botocore's models of package.BOTOCORE_SERVICES only: a client of another
    service would fail in Lambda with UnknownServiceError."""
    made: set[str] = set()
    for path in (ROOT / "chalicelib").rglob("*.py"):
        if path.is_relative_to(ROOT / "chalicelib" / "local") or path.is_relative_to(ROOT / "chalicelib" / "ops"):
            continue
        made |= set(re.findall(r"""boto3\.client\(\s*["']([a-z0-9-]+)["']""", path.read_text(encoding="utf-8")))
    assert made and made <= set(package.BOTOCORE_SERVICES), made - set(package.BOTOCORE_SERVICES)
    assert "dynamodb" in package.BOTOCORE_SERVICES  # pynamodb's


def test_sandbox_jobs_run_from_their_queue_with_a_dead_letter_queue() -> None:
    """The sandbox queue (sandbox/jobs.py) feeds RunSandboxes one job a batch, reporting failed jobs;
    a job is invisible longer than the function may run; what failed every attempt waits in the
    dead-letter queue under an alarm. Only the function that queues jobs (the console's, the API
    function) is told where the queue is."""
    from chalicelib.sandbox import worker

    found = TEMPLATE["Resources"]
    queue = found["SandboxQueue"]["Properties"]
    function = found["RunSandboxes"]["Properties"]
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": ["SandboxDeadLetterQueue", "Arn"]},
        "maxReceiveCount": worker.MAX_RECEIVES,
    }
    assert queue["VisibilityTimeout"] > function["Timeout"] == 900 and function["MemorySize"] == 1024
    source = function["Events"]["RunSandboxesSqsEventSource"]["Properties"]
    assert source == {
        "Queue": {"Fn::GetAtt": ["SandboxQueue", "Arn"]},
        "BatchSize": 1,
        "FunctionResponseTypes": ["ReportBatchItemFailures"],
    }
    alarm = found["SandboxDeadLettersAlarm"]["Properties"]
    assert alarm["Dimensions"][0]["Value"] == {"Fn::GetAtt": ["SandboxDeadLetterQueue", "QueueName"]}
    assert found["RunSandboxesErrorsAlarm"]["Properties"]["Dimensions"][0]["Value"] == {"Ref": "RunSandboxes"}
    for name in (*resources.FUNCTIONS, resources.MCP_FUNCTION):
        variables = found[name]["Properties"]["Environment"]["Variables"]
        if name in resources.SANDBOX_JOB_FUNCTIONS:
            assert variables["PM_SANDBOX_QUEUE_URL"] == {"Ref": "SandboxQueue"}
        else:
            assert "PM_SANDBOX_QUEUE_URL" not in variables, name
    assert resources.SANDBOX_JOB_FUNCTIONS == ("APIHandler",)
