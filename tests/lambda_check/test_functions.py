"""Every function of the packaged template, started from its own bundle as Lambda starts it
(infra/lambda_check), invoked with the events AWS sends it; the answers and the effects in
the table, queues and bucket are asserted. A function added to the template joins
test_every_function_of_the_template_starts_and_is_invoked_here."""

from __future__ import annotations

import gzip
import json
import re
import urllib.parse
import urllib.request
import uuid
from typing import Any

import pytest

from infra.lambda_check.events import Answer, Queue, Stream, scheduled, subscription_event
from infra.package import MANIFEST, MODEL_FILES
from tests.lambda_check.conftest import Deployment
from tests.uploads import multipart, pdf

API = "/propertymanagement/v2"
PLATFORM = "/api/platform/v1/command"
JSON = {"Content-Type": "application/json"}
# Each function and the test below that invokes it: a function the template gains fails the
# first test until it is added here, with a test of its own.
INVOKED_BY = {
    "APIHandler": "test_rest_sign_up_contacts_and_the_console",
    "McpHandler": "test_mcp_lists_searches_and_executes_tools",
    "OnTableChange": "test_a_change_reaches_the_delivery_queue_and_the_delivery_worker",
    "DeliverWebhooks": "test_a_change_reaches_the_delivery_queue_and_the_delivery_worker",
    "OnUpload": "test_a_bulk_upload_is_registered_from_the_buckets_notification",
    "SweepUploads": "test_the_daily_sweep_runs_on_its_schedule",
    "WriteRequestLogs": "test_request_logs_reach_the_table_through_the_log_subscription",
    "RunExports": "test_an_export_runs_from_its_queue_and_its_file_downloads",
    "RunSandboxes": "test_a_sandbox_made_in_the_console_is_planted_from_its_queue",
}


def test_every_function_of_the_template_starts_and_is_invoked_here(deployment: Deployment) -> None:
    assert set(deployment.functions) == set(INVOKED_BY), "a function of the template has no test here"
    for name, running in deployment.functions.items():
        running.start()
        assert running.init_seconds is not None and running.init_seconds < 10, (name, running.init_seconds)


class Client:
    """A key's REST calls through API Gateway's proxy events."""

    def __init__(self, deployment: Deployment, key: str | None = None) -> None:
        self.gateway = deployment.gateway
        self.key = key

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        auth = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        return {**auth, **(extra or {})}

    def command(self, name: str, body: Any, path: str = API + "/command") -> Answer:
        data = json.dumps(body).encode()
        return self.gateway.request("POST", f"{path}/{name}", headers=self._headers(JSON), body=data)

    def query(self, name: str, query: str = "") -> Answer:
        return self.gateway.request("GET", f"{API}/query/{name}{query}", headers=self._headers())

    def ok(self, name: str, body: Any) -> Any:
        answer = self.command(name, body)
        assert answer.status == 200, (name, answer.status, answer.body[:500])
        return answer.json()

    def ok_query(self, name: str, query: str = "") -> Any:
        answer = self.query(name, query)
        assert answer.status == 200, (name, answer.status, answer.body[:500])
        return answer.json()


@pytest.fixture(scope="module")
def client(deployment: Deployment) -> Client:
    """A tenant signed up through the REST function, its code read from the mail SES sent."""
    email = f"{uuid.uuid4().hex[:10]}@example.org"
    anonymous = Client(deployment)
    started = anonymous.command(
        "signup", {"companyName": "Lambda GmbH", "email": email, "agentName": "setup"}, PLATFORM
    )
    assert started.status == 200, started.body
    (mail,) = [m for m in deployment.stand_in.sent_mail() if email in json.dumps(m.destinations)]
    code = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", mail.body)
    assert code, mail.body
    confirmed = anonymous.command("signup.confirm", {"email": email, "code": code.group(1)}, PLATFORM)
    assert confirmed.status == 200, confirmed.body
    return Client(deployment, confirmed.json()["apiKey"]["key"])


def test_rest_sign_up_contacts_and_the_console(deployment: Deployment, client: Client) -> None:
    created = client.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Lambda"}})["contact"]
    shown = client.query("contacts.show", f"?contact={created['id']}")
    assert shown.status == 200 and shown.json()["contact"]["lastName"] == "Lambda"
    listed = client.query("contacts", "?limit=5&offset=0")
    assert listed.status == 200 and listed.json()["pagination"]["total"] == 1
    spec = client.query("openapi.spec")
    assert spec.status == 200 and "/propertymanagement/v2/command/contacts.create" in spec.json()["paths"]
    unknown = client.query("nothing.here")
    assert unknown.status == 404 and unknown.json()["code"] == "unknown_operation"
    sign_in = deployment.gateway.request("GET", "/console/signin")
    assert sign_in.status == 200 and b"<form" in sign_in.body
    assert (sign_in.header("content-type") or "").startswith("text/html")
    # at the API's own address the stage stands before every path: links and redirects carry it
    assert b'href="/dev/console/static/console.css"' in sign_in.body and b'"/console/' not in sign_in.body
    start = deployment.gateway.request("GET", "/console")
    assert start.status == 303 and start.header("location") == "/dev/console/signin", (start.status, start.headers)


def test_a_multipart_upload_arrives_base64_encoded_and_is_stored(client: Client, deployment: Deployment) -> None:
    building = client.ok("objects.create", {"object": {"name": "Lindenstraße 12", "type": "weg"}})["object"]
    body, content_type = multipart(
        [("locationId", building["id"])], "resource", "grundriss.pdf", pdf(), "application/pdf"
    )
    answer = deployment.gateway.request(
        "POST",
        f"{API}/command/documents.upload",
        headers={"Authorization": f"Bearer {client.key}", "Content-Type": content_type},
        body=body,
    )
    assert answer.status == 200, answer.body
    document = answer.json()["document"]
    assert document["contentType"] == "application/pdf" and document["fileName"] == "grundriss.pdf"


def _mcp(deployment: Deployment, key: str, method: str, params: dict[str, Any] | None = None) -> Any:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    answer = deployment.gateway.request(
        "POST",
        f"{API}/mcp",
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        },
        body=json.dumps(message).encode(),
    )
    assert answer.status == 200, (method, answer.status, answer.body[:500])
    return answer.json()["result"]


def test_mcp_lists_searches_and_executes_tools(deployment: Deployment, client: Client) -> None:
    assert client.key
    tools = _mcp(deployment, client.key, "tools/list")["tools"]
    assert len(tools) == 8 and "meta.tools.search" in {t["name"] for t in tools}
    found = _mcp(
        deployment,
        client.key,
        "tools/call",
        {"name": "meta.tools.search", "arguments": {"query": "Telefonnotiz erfassen", "limit": 3}},
    )
    assert "callrecords.create" in json.dumps(found["structuredContent"]), found
    # a German query ranks by the embeddings alone: the models came from the artifact bucket, as the
    # bundle holds only their manifest (infra/package.py MODEL_FILES)
    task = deployment.functions["McpHandler"].task_root
    assert (task / MANIFEST).exists() and not any((task / name).exists() for name in MODEL_FILES)
    listed = _mcp(
        deployment,
        client.key,
        "tools/call",
        {"name": "meta.tool.execute", "arguments": {"name": "contacts", "arguments": {"limit": 5, "offset": 0}}},
    )
    assert not listed.get("isError"), listed
    assert deployment.functions["McpHandler"].init_seconds is not None


def test_the_oauth_endpoints_answer_through_the_mcp_function(deployment: Deployment) -> None:
    """API Gateway sends the authorization server's paths to McpHandler (its RestAPI paths): the
    metadata, a public client's registration, and an authorize request that goes on to consent."""
    metadata = deployment.gateway.request("GET", "/.well-known/oauth-authorization-server")
    assert metadata.status == 200, metadata.body[:300]
    assert metadata.json()["code_challenge_methods_supported"] == ["S256"]
    client = {
        "client_name": "Lambda",
        "redirect_uris": ["https://client.example/cb"],
        "token_endpoint_auth_method": "none",
    }
    registered = deployment.gateway.request("POST", "/register", headers=JSON, body=json.dumps(client).encode())
    assert registered.status == 201, registered.body[:300]
    resource = metadata.json()["issuer"] + API + "/mcp"
    query = urllib.parse.urlencode(
        {
            "response_type": "code",
            "client_id": registered.json()["client_id"],
            "redirect_uri": "https://client.example/cb",
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            "code_challenge_method": "S256",
            "resource": resource,
        }
    )
    sent = deployment.gateway.request("GET", f"/authorize?{query}")
    assert sent.status == 302 and "/console/oauth/consent?request=" in (sent.header("location") or ""), sent.body[:300]


def test_a_change_reaches_the_delivery_queue_and_the_delivery_worker(deployment: Deployment, client: Client) -> None:
    on_change, deliver = deployment.functions["OnTableChange"], deployment.functions["DeliverWebhooks"]
    stream = Stream(deployment.stand_in, on_change.function.events["OnTableChangeDynamodbEventSource"])
    stream.read()  # what happened before this test
    hook = client.ok(
        "webhooks.create",
        {"name": "CRM", "url": "https://hooks.pm-lambda-check.invalid/in", "events": ["contact.created"]},
    )["webhook"]
    contact = client.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Strom"}})["contact"]
    answers = stream.deliver(on_change)
    assert answers and all(a == {"batchItemFailures": []} for a in answers), answers
    assert stream.filtered_out > 0  # the request logs and counters the filter keeps from the function
    queue = Queue(deployment.stand_in, deliver.function.events["DeliverWebhooksSqsEventSource"])
    records, answer = queue.deliver(deliver)
    assert records, "the change queued no delivery"
    assert records[0]["attributes"]["MessageGroupId"] and contact["id"] in records[0]["body"]
    assert isinstance(answer, dict) and "batchItemFailures" in answer, answer
    attempts = client.query("webhooks.deliveries.list", f"?webhook={hook['id']}&limit=10&offset=0")
    assert attempts.status == 200, attempts.body
    (attempt,) = attempts.json()["deliveries"]
    assert attempt["eventType"] == "contact.created" and attempt["status"] in ("pending", "failed"), attempt


def test_a_bulk_upload_is_registered_from_the_buckets_notification(deployment: Deployment, client: Client) -> None:
    on_upload = deployment.functions["OnUpload"]
    building = client.ok("objects.create", {"object": {"name": "Bergstraße 3", "type": "weg"}})["object"]
    content = pdf("bulk")
    request = {
        "locationId": building["id"],
        "fileName": "scan.pdf",
        "contentType": "application/pdf",
        "size": len(content),
    }
    created = client.ok("documents.uploads.create", {"uploads": [request]})
    (upload,) = created["uploads"]
    body, content_type = multipart_form(upload, content)
    posted = urllib.request.Request(upload["url"], data=body, method="POST", headers={"Content-Type": content_type})
    with urllib.request.urlopen(posted, timeout=30) as response:
        assert response.status in (200, 204)
    queue = Queue(deployment.stand_in, on_upload.function.events["OnUploadSqsEventSource"])
    seen: list[dict[str, Any]] = []
    for _ in range(3):  # S3's test event first, then the object's
        records, answer = queue.deliver(on_upload)
        seen += records
        assert answer in (None, {"batchItemFailures": []}), answer
    assert any("ObjectCreated" in r["body"] for r in seen), seen
    shown = client.query("documents.show", f"?document={upload['documentId']}")
    assert shown.status == 200, shown.body
    assert shown.json()["document"]["size"] == len(content)


def test_the_daily_sweep_runs_on_its_schedule(deployment: Deployment) -> None:
    sweep = deployment.functions["SweepUploads"]
    assert sweep.function.events["SweepUploadsEvent"]["Type"] == "Schedule"
    assert sweep.call(scheduled("sweep-uploads")) is None
    assert "upload sweep" in sweep.log_tail()


def multipart_form(upload: dict[str, Any], content: bytes) -> tuple[bytes, str]:
    fields = upload["fields"]
    return multipart(list(fields.items()), "file", upload["fileName"], content, fields.get("Content-Type"))


def test_request_logs_reach_the_table_through_the_log_subscription(deployment: Deployment, client: Client) -> None:
    """The HTTP functions only print their request-log entries (no write per call, issue 32);
    each subscription filter of the template hands its group's matching lines to the function it
    names (CloudWatch Logs' event), and the key's request log then holds the calls of this module."""
    own = [k for k in client.ok_query("apikeys.list", "?limit=10&offset=0")["apiKeys"] if k["agentName"] == "setup"]
    listing = f"?apiKey={own[0]['id']}&limit=1000&offset=0"
    assert client.ok_query("apikeys.requests.list", listing)["pagination"]["total"] == 0, "a call wrote its own log"

    groups = {running.function.log_group: running for running in deployment.functions.values()}
    subscriptions = {
        logical_id: deployment.template.resolve(resource["Properties"])
        for logical_id, resource in deployment.template.resources.items()
        if resource["Type"] == "AWS::Logs::SubscriptionFilter"
    }
    assert {groups[s["LogGroupName"]].function.name for s in subscriptions.values()} == {"APIHandler", "McpHandler"}
    for logical_id, subscription in subscriptions.items():
        writer = next(r for r in deployment.functions.values() if r.arn == subscription["DestinationArn"])
        printed = groups[subscription["LogGroupName"]].log_path.read_text(encoding="utf-8").splitlines()
        event = subscription_event(printed, subscription["LogGroupName"], logical_id, subscription["FilterPattern"])
        assert writer.call(event)["written"] > 0, logical_id

    logged = client.ok_query("apikeys.requests.list", listing)["requests"]
    operations = {(r["operation"], r["channel"]) for r in logged}
    assert {("contacts.create", "rest"), ("contacts.show", "rest"), ("mcp", "mcp")} <= operations, operations
    assert ("apikeys.requests.list", "rest") in operations  # the first look above, printed and then stored


def test_an_export_runs_from_its_queue_and_its_file_downloads(deployment: Deployment, client: Client) -> None:
    """exports.create queues the export (the API function's message), RunExports takes it from the
    export queue as Lambda's SQS event source does and writes the file to the bucket in parts;
    exports.show then hands out a link that serves it."""
    run_exports = deployment.functions["RunExports"]
    client.ok("objects.create", {"object": {"name": "Exportweg 1", "type": "rental"}})
    started = client.ok("exports.create", {"entityTypes": ["object"]})
    queue = Queue(deployment.stand_in, run_exports.function.events["RunExportsSqsEventSource"])
    records, answer = queue.deliver(run_exports)
    assert len(records) == 1 and answer == {"batchItemFailures": []}, (records, answer)
    shown = client.ok_query("exports.show", f"?id={started['id']}")
    total = client.ok_query("objects", "?limit=1&offset=0")["pagination"]["total"]
    assert shown["status"] == "done" and shown["counts"] == {"object": total}, shown
    with urllib.request.urlopen(shown["downloadUrl"], timeout=30) as response:
        lines = [json.loads(line) for line in gzip.decompress(response.read()).splitlines()]
    assert len(lines) == total and "Exportweg 1" in [line["data"]["name"] for line in lines]


def _cookies(answer: Answer, jar: dict[str, str]) -> None:
    for cookie in answer.headers.get("set-cookie", []):
        name, _, rest = cookie.partition("=")
        if "Max-Age=0" in cookie:
            jar.pop(name, None)
        else:
            jar[name] = rest.split(";", 1)[0]


def _console(
    deployment: Deployment, jar: dict[str, str], method: str, path: str, form: dict[str, str] | None = None
) -> Answer:
    """A console page through API Gateway as a browser asks for it: the session cookie, the form's token."""
    cookies = {k: v for k, v in jar.items() if not k.startswith("_")}  # _csrf: the last page's form token
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
    body = None
    if form is not None:
        body = urllib.parse.urlencode({**form, **({"csrf": jar["_csrf"]} if "_csrf" in jar else {})}).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    answer = deployment.gateway.request(method, f"/console{path}", headers=headers, body=body)
    _cookies(answer, jar)
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', answer.body.decode("utf-8", "replace"))
    if found:
        jar["_csrf"] = found.group(1)
    return answer


def test_a_sandbox_made_in_the_console_is_planted_from_its_queue(deployment: Deployment) -> None:
    """An owner creates an empty sandbox on the console's Sandbox page (the API function queues its
    planting on the sandbox queue, sandbox/jobs.py); RunSandboxes takes the job from the queue as
    Lambda's SQS event source does and plants it through the operations in its own process: the
    sandbox's state goes from planting to ready."""
    email = f"{uuid.uuid4().hex[:10]}@example.org"
    anonymous = Client(deployment)
    started = anonymous.command(
        "signup", {"companyName": "Sandkasten GmbH", "email": email, "agentName": "setup"}, PLATFORM
    )
    assert started.status == 200, started.body

    def code() -> str:
        mails = [m for m in deployment.stand_in.sent_mail() if email in json.dumps(m.destinations)]
        found = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", mails[-1].body)
        assert found, mails[-1].body
        return found.group(1)

    confirmed = anonymous.command("signup.confirm", {"email": email, "code": code()}, PLATFORM)
    assert confirmed.status == 200, confirmed.body
    parent = confirmed.json()["tenant"]["id"]
    jar: dict[str, str] = {}
    _console(deployment, jar, "GET", "/signin")
    assert _console(deployment, jar, "POST", "/signin", {"email": email}).status in (200, 303)
    signed_in = _console(deployment, jar, "POST", "/signin/code", {"email": email, "code": code()})
    assert signed_in.status == 303, signed_in.body[:500]
    assert _console(deployment, jar, "GET", "/sandboxes").status == 200
    created = _console(deployment, jar, "POST", "/sandboxes", {"name": "Spielwiese", "seed": "empty"})
    assert created.status == 303, created.body[:500]

    dynamodb = deployment.stand_in.client("dynamodb")
    table = deployment.stand_in.physical("Table", None)

    def sandbox() -> dict[str, Any]:
        (hit,) = dynamodb.query(
            TableName=table,
            IndexName="gsi2",
            KeyConditionExpression="gsi2pk = :pk",
            ExpressionAttributeValues={":pk": {"S": f"{parent}#sandboxes"}},
        )["Items"]
        item = dynamodb.get_item(TableName=table, Key={"PK": hit["PK"], "SK": {"S": "tenant"}})["Item"]
        return {name: value.get("S", value.get("BOOL")) for name, value in item["data"]["M"].items()}

    assert sandbox()["sandboxState"] == "planting" and sandbox()["sandbox"] is True
    run_sandboxes = deployment.functions["RunSandboxes"]
    queue = Queue(deployment.stand_in, run_sandboxes.function.events["RunSandboxesSqsEventSource"])
    assert queue.reports_items and queue.batch_size == 1
    records, answer = queue.deliver(run_sandboxes)
    assert len(records) == 1 and answer == {"batchItemFailures": []}, (records, answer)
    assert json.loads(records[0]["body"])["action"] == "plant"
    assert sandbox()["sandboxState"] == "ready", sandbox()
    assert queue.receive() == []
