"""`make serve` as a newcomer runs it: the server process starts on its own, prints how to
sign up, and keeps its data across a restart."""

from __future__ import annotations

import base64
import urllib.request
from pathlib import Path

import pytest

from tests import serve_process
from tests.client import Api

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_serve_prints_signup_and_keeps_data_across_restart(tmp_path: Path) -> None:
    from chalicelib.local.stack import free_port

    port = free_port()
    proc = serve_process.start(port, tmp_path)
    api = Api(f"http://127.0.0.1:{port}", outbox_dir=str(tmp_path / "outbox"))
    tenant = api.signup(company="Neustart GmbH")  # its code read from the outbox in the state folder
    contact = tenant.contact(lastName="Bleibt")
    obj = tenant.ok("objects.create", {"object": {"name": "Haus am See", "type": "weg"}})["object"]
    content = b"%PDF-1.4\n% kept across restarts\n%%EOF\n"
    body = {
        "locationId": obj["id"],
        "resource": {"fileName": "bleibt.pdf", "content": base64.b64encode(content).decode()},
    }
    document = tenant.ok("documents.upload", body)["document"]
    output = serve_process.stop(proc)
    assert "/api/platform/v1/command/signup" in output and "curl" in output and "/console" in output
    assert f"--- mail to {tenant.email}" in output  # make serve prints the mail it sends
    assert (tmp_path / "state.json").exists()

    proc = serve_process.start(port, tmp_path)
    try:
        shown = tenant.get("contacts.show", {"contact": contact["id"]})["contact"]
        assert shown["lastName"] == "Bleibt"
        assert tenant.get("info")["tenant"]["companyName"] == "Neustart GmbH"
        link = tenant.get("documents.show", {"document": document["id"]})["document"]["downloadUrl"]
        with urllib.request.urlopen(link, timeout=10) as resp:
            assert resp.read() == content
    finally:
        serve_process.stop(proc)
