"""The local stack refuses another moto or botocore than requirements.lock pins, naming both."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chalicelib.local import pinned

ROOT = Path(__file__).resolve().parents[2]
LOCK = "botocore==1.44.5\nmoto==5.2.5\nmoto-ext[x]==1\n"


def test_the_pinned_versions_pass() -> None:
    pinned.check({"moto": "5.2.5", "botocore": "1.44.5"}, LOCK)
    pinned.check()  # and the installed ones are the pinned ones


@pytest.mark.parametrize(
    ("installed", "named"),
    [
        ({"moto": "5.2.6", "botocore": "1.44.5"}, "moto 5.2.6 is installed, requirements.lock pins 5.2.5"),
        ({"moto": "5.2.5", "botocore": "1.45.0"}, "botocore 1.45.0 is installed, requirements.lock pins 1.44.5"),
    ],
)
def test_another_version_stops_the_stack_naming_both(installed: dict[str, str], named: str) -> None:
    with pytest.raises(pinned.VersionMismatch, match=re.escape(named)):
        pinned.check(installed, LOCK)


def test_the_lock_holds_every_pin_of_the_requirements_files() -> None:
    """A requirements file changed without `make lock` fails here."""
    lock = pinned.pins((ROOT / "requirements.lock").read_text(encoding="utf-8"))
    for name in ("requirements.txt", "requirements-mcp.txt", "requirements-dev.txt"):
        for package, version in pinned.pins((ROOT / name).read_text(encoding="utf-8")).items():
            assert lock.get(package) == version, f"{name} pins {package}=={version}, the lock {lock.get(package)}"


def test_the_local_stack_does_not_patch_another_moto(monkeypatch: pytest.MonkeyPatch) -> None:
    from chalicelib.local import moto_patches

    real = pinned.metadata.version
    monkeypatch.setattr(moto_patches, "_applied", False)
    monkeypatch.setattr(pinned.metadata, "version", lambda name: "5.3.0" if name == "moto" else real(name))
    with pytest.raises(
        pinned.VersionMismatch, match=re.escape("moto 5.3.0 is installed, requirements.lock pins 5.2.5")
    ):
        moto_patches.apply()
