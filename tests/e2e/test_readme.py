"""The README's examples work as written (issue 38): its shell blocks marked `<!-- test: runs -->` (the
curl quickstart and the MCP call) run in bash, one after the other as a reader pastes them, against
`make serve` started on another port (9000) and with another state folder than the defaults, so a
block that hard-codes port 8000 or `.local/` fails here."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

from tests import serve_process

ROOT = Path(__file__).resolve().parents[2]
MARK = "<!-- test: runs -->"
PORT = 9000  # the README's PM_PORT example; another free one when something else holds it


def marked_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(re.escape(MARK) + r"\n```(?:sh|bash)\n(.*?)```", text, re.S)


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_the_readme_marks_its_curl_and_its_mcp_example_for_this_test() -> None:
    blocks = marked_blocks()
    text = (ROOT / "README.md").read_text()
    assert len(blocks) == text.count(MARK) == 2, "each mark stands right above a ```sh block"
    assert "signup.confirm" in blocks[0] and "/propertymanagement/v2/mcp" in blocks[1]
    for block in blocks:
        assert "8000" not in block.replace("${PM_PORT:-8000}", ""), "the port comes from PM_PORT"


def test_the_readme_is_a_page_that_links_into_the_docs() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200, "the rest belongs in docs/"
    linked = set(re.findall(r"\]\((docs/[^)#]+)", text))
    assert "docs/reference/index.md" in linked and "docs/getting-started.md" in linked
    handwritten = {path for path in linked if not path.startswith("docs/reference/")}  # the reference is generated
    assert not [path for path in handwritten if not (ROOT / path).exists()]


@pytest.mark.slow
def test_the_readmes_examples_run_as_written_on_another_port_and_state_folder(tmp_path: Path) -> None:
    from chalicelib.local.stack import free_port

    port = PORT if port_is_free(PORT) else free_port()
    state_dir = tmp_path / "state"
    proc = serve_process.start(port, state_dir)
    try:
        # a reader's shell: no test settings, only the PM_PORT and PM_STATE_DIR make serve was started with
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", str(tmp_path)),
            "TMPDIR": str(tmp_path),
            "PM_PORT": str(port),
            "PM_STATE_DIR": str(state_dir),
        }
        script = "\n".join(marked_blocks())
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        serve_process.stop(proc)
    shown = f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    assert done.returncode == 0, shown
    out = done.stdout
    assert '"companyName":"Hausverwaltung Muster GmbH"' in out, shown  # info, with the confirmed key
    assert '"lastName":"Mustermann"' in out and '"total":1' in out, shown  # created and listed
    assert '"documentType":"energyCertificate"' in out and '"contentType":"application/pdf"' in out, shown
    assert "'accounting.directdebitmandate.create'" in out, shown  # the MCP tool search's first answer
    assert '"structuredContent":{"result":"con_' in out, shown  # a contact made through meta.tool.execute
