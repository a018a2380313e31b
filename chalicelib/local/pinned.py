"""The local stack runs only on the moto and botocore it was written against.

Its patches (moto_patches.py) and its direct path into moto (moto_direct.py) replace moto's
internals and call botocore's: another release may rename what they replace, or change what
they rely on, without any error (a patch that no longer applies simply stops working, and a
write that moto's new code would lock could race). So the stack refuses to start unless the
installed versions are the ones requirements.lock pins, and names both."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

LOCK = Path(__file__).resolve().parents[2] / "requirements.lock"
CHECKED = ("moto", "botocore")


class VersionMismatch(RuntimeError):
    pass


def pins(text: str) -> dict[str, str]:
    """`name==version` lines of a requirements file, by lower-case name (extras dropped)."""
    found = {}
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==([^\s;#]+)", line)
        if match:
            found[match.group(1).lower().replace("_", "-")] = match.group(2)
    return found


def check(installed: dict[str, str] | None = None, lock_text: str | None = None) -> None:
    """Raises VersionMismatch naming the installed and the pinned version of each package that
    differs (`installed` and `lock_text` for tests; the environment and requirements.lock else)."""
    if lock_text is None:
        if not LOCK.exists():
            raise VersionMismatch(f"the local stack needs {LOCK} to check moto's and botocore's versions")
        lock_text = LOCK.read_text(encoding="utf-8")
    pinned = pins(lock_text)
    have = installed if installed is not None else {name: metadata.version(name) for name in CHECKED}
    wrong = [
        f"{name} {have[name]} is installed, requirements.lock pins {pinned.get(name, 'nothing')}"
        for name in CHECKED
        if have[name] != pinned.get(name)
    ]
    if wrong:
        raise VersionMismatch(
            "The local stack patches moto and calls botocore as the pinned releases are written: "
            + "; ".join(wrong)
            + ". Install the pinned ones (make install) or port chalicelib/local/moto_patches.py first."
        )
