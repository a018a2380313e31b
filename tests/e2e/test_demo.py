"""`make demo` (PM_DEMO=1 make serve): the first look is not empty. The local service starts with a
sandbox of the demo company owned by demo@example.org, says how to sign in, and fills it while it
already answers; a second start finds the same sandbox instead of making another. It starts with
PM_DEMO_SIZE=small (as `PM_DEMO_SIZE=small make demo` would): the wiring is under test here, the full
demo company's totals in tests/functional/test_sandboxes.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.local.demo import DEMO_EMAIL
from chalicelib.sandbox import lifecycle
from chalicelib.sandbox.demo import TOTALS, demo_lines
from tests import serve_process
from tests.client import Api
from tests.console_client import Person
from tests.eventually import eventually

PLANTED_WITHIN_S = 120  # the small demo company takes seconds; this machine runs other tests beside
SIZE = "small"


@pytest.mark.slow
def test_make_demo_opens_on_the_demo_company(tmp_path: Path) -> None:
    from chalicelib.local.stack import free_port

    port = free_port()
    proc = serve_process.start(port, tmp_path, PM_DEMO="1", PM_DEMO_SIZE=SIZE)
    numbers = [line["data"]["number"] for line in demo_lines(lifecycle.DEFAULT_SEED, SIZE) if line["type"] == "unit"]
    assert len(numbers) == TOTALS[SIZE]["unit"]
    api = Api(f"http://127.0.0.1:{port}", outbox_dir=str(tmp_path / "outbox"))
    try:
        person = Person(api, DEMO_EMAIL)
        person.sign_in()

        def listed() -> bool:  # every unit of the demo company (one page: fewer than 50)
            page = person.get("/data/units").text()
            return all(f" {number} " in page for number in numbers)

        eventually(
            listed,
            timeout=PLANTED_WITHIN_S,
            message="the demo company's units",
        )
        assert "Sandbox" in person.get("/").text()
    finally:
        output = serve_process.stop(proc)
    assert f"sign in as {DEMO_EMAIL}" in output, output[-2000:]
    sandbox_id = output.split("a sandbox: ", 1)[1].split(";", 1)[0]

    proc = serve_process.start(port, tmp_path, PM_DEMO="1", PM_DEMO_SIZE=SIZE)
    output = serve_process.stop(proc)
    assert f"a sandbox: {sandbox_id};" in output, "the second start found the same sandbox"
