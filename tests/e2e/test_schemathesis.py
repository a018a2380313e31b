"""Schemathesis over `make serve`, as a vendor's tooling would run it (issue 52, 6): the command
line (`st run`) against the served OpenAPI document of a key holding every scope, every phase
(examples, coverage, fuzzing, stateful along the document's links), 5 examples per operation,
schemathesis' default checks. It must report no failure, and the stateful phase must walk some of
the document's links (create -> show -> update -> delete).

The hooks (tests/e2e/schemathesis_hooks.py) give valid values for the formats whose rule no JSON
Schema keyword states (IBAN, BIC, creditor id check digits), and replace positive_data_acceptance
(every 400 to a schema-valid request) by a check that such a 400 comes from a rule the document
states in words (a period's order, a date in the future, a cursor never handed out), never from a
check the document should have stated (schema validation, the body's reading, Idempotency-Key's
characters, an empty required field). schemathesis.toml leaves the stateful phase to the document's
links. Nothing else is configured.

tests/functional/test_fuzz.py is the in-process sibling (aimed at a world of live entities, with
checks of its own); this one holds the document to what standard tools read in it."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests import serve_process
from tests.client import Api

ROOT = Path(__file__).resolve().parents[2]
SPEC = "/propertymanagement/v2/query/openapi.spec"
MAX_EXAMPLES = 5


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_schemathesis_finds_no_failure_in_any_phase(tmp_path: Path) -> None:
    from chalicelib.local.stack import free_port

    port = free_port()
    proc = serve_process.start(port, tmp_path / "state")
    try:
        api = Api(f"http://127.0.0.1:{port}", outbox_dir=str(tmp_path / "state" / "outbox"))
        tenant = api.signup(company="Schemathesis Hausverwaltung GmbH")
        env = {**os.environ, "SCHEMATHESIS_HOOKS": "tests.e2e.schemathesis_hooks", "PYTHONPATH": str(ROOT)}
        seed = int(time.time())  # printed on failure: `--seed` replays the run

        def run(phases: str, seed: int, timeout: int) -> str:
            """`st run` of these phases; its output, once it reported no failure."""
            command = [
                str(ROOT / ".venv" / "bin" / "st"),
                "--config-file",
                str(Path(__file__).with_name("schemathesis.toml")),
                "run",
                f"http://127.0.0.1:{port}{SPEC}",
                "--header",
                f"Authorization: Bearer {tenant.key}",
                "--phases",
                phases,
                "--max-examples",
                str(MAX_EXAMPLES),
                "--workers",
                "2",  # both cores; the hooks keep Python 3.11.7's AST parsing to one thread at a time
                # positive_data_acceptance is replaced by the hooks' schema_valid_refused_only_by_a_rule
                "--exclude-checks",
                "positive_data_acceptance",
                "--request-timeout",
                "29",  # as long as API Gateway lets a request take
                "--seed",
                str(seed),
                "--report",
                "junit",
                "--report-dir",
                str(tmp_path / "report"),
            ]
            started = time.monotonic()
            # in the test's folder: schemathesis keeps a cache (.schemathesis/) where it runs
            done = subprocess.run(
                command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout, check=False
            )
            return _checked(done, time.monotonic() - started)

        output = run("examples,coverage,fuzzing,stateful", seed, timeout=2300)
        if _links_covered(output) == 0:
            # Five random walks may follow no link (0 of 341 in one CI run of 2 December, 3 in
            # others): a second stateful walk on the next seed must, or the links lead nowhere.
            output = run("stateful", seed + 1, timeout=600)
            assert _links_covered(output) > 0, "the stateful phase followed none of the document's links, twice"
    finally:
        serve_process.stop(proc)


def _checked(done: subprocess.CompletedProcess[str], took: float) -> str:
    """The run's output, once it reported no failure."""
    output = done.stdout + done.stderr
    summary = output[output.rfind("SUMMARY") :] if "SUMMARY" in output else output[-6000:]
    links_line = next((line.strip() for line in output.splitlines() if "API Links:" in line), "")
    print(f"schemathesis took {took:.0f} s; stateful {links_line}\n{summary}")
    assert done.returncode == 0, output[-30000:]
    assert re.search(r"No issues found|0 failures", summary) or "Failures:" not in summary, summary
    return output


def _links_covered(output: str) -> int:
    links = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", output)
    assert links is not None, output[-6000:]
    return int(links.group(1))
