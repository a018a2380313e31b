"""`make demo` (PM_DEMO=1 make serve): the first look is not empty. The local service starts with a
sandbox of the demo company owned by demo@example.org, says how to sign in, and fills it while it
already answers; a second start finds the same sandbox instead of making another."""

from __future__ import annotations

from pathlib import Path

from chalicelib.local.demo import DEMO_EMAIL
from chalicelib.sandbox.demo import DEMO_TOTALS
from tests import serve_process
from tests.client import Api
from tests.console_client import Person
from tests.eventually import eventually

PLANTED_WITHIN_S = 240  # the demo company takes most of a minute; this machine runs other tests beside


def test_make_demo_opens_on_the_demo_company(tmp_path: Path) -> None:
    from chalicelib.local.stack import free_port

    port = free_port()
    proc = serve_process.start(port, tmp_path, PM_DEMO="1")
    api = Api(f"http://127.0.0.1:{port}", outbox_dir=str(tmp_path / "outbox"))
    try:
        person = Person(api, DEMO_EMAIL)
        person.sign_in()
        eventually(
            lambda: f"of {DEMO_TOTALS['unit']}" in person.get("/data/units").text(),
            timeout=PLANTED_WITHIN_S,
            message="the demo company's units",
        )
        assert "Sandbox" in person.get("/").text()
    finally:
        output = serve_process.stop(proc)
    assert f"sign in as {DEMO_EMAIL}" in output, output[-2000:]
    sandbox_id = output.split("a sandbox: ", 1)[1].split(";", 1)[0]

    proc = serve_process.start(port, tmp_path, PM_DEMO="1")
    output = serve_process.stop(proc)
    assert f"a sandbox: {sandbox_id};" in output, "the second start found the same sandbox"
