"""`pmctl --local` finds the `make serve` it is pointed at by PM_STATE_DIR (issue 38): a relative
folder is the repository's, as `make serve` (run by make from the repository) takes it, wherever pmctl
is started from."""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.ops import pmctl

ROOT = Path(__file__).resolve().parents[2]


def test_without_pm_state_dir_pmctl_reads_the_repositorys_local_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PM_STATE_DIR", raising=False)
    assert pmctl.state_dir() == ROOT / ".local"


def test_a_relative_pm_state_dir_is_the_repositorys_from_any_working_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PM_STATE_DIR", ".local-two")
    monkeypatch.chdir(tmp_path)
    assert pmctl.state_dir() == ROOT / ".local-two"


def test_an_absolute_pm_state_dir_is_taken_as_it_is(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PM_STATE_DIR", str(tmp_path / "state"))
    assert pmctl.state_dir() == tmp_path / "state"


def test_the_outbox_is_the_one_a_running_make_serve_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PM_OUTBOX_DIR", raising=False)
    monkeypatch.setenv("PM_STATE_DIR", str(tmp_path))
    (tmp_path / "stack.json").write_text('{"outboxDir": "/somewhere/outbox"}')
    assert pmctl._outbox_dir() == "/somewhere/outbox"
    (tmp_path / "stack.json").unlink()
    assert pmctl._outbox_dir() == str(tmp_path / "outbox")
