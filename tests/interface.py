"""The operation tables of shared/INTERFACE.md, kept in tests/contract/interface_operations.txt."""

from __future__ import annotations

from pathlib import Path

TABLE = Path(__file__).parent / "contract" / "interface_operations.txt"


def interface_operations() -> dict[str, str]:
    """Operation name -> kind (query or command)."""
    lines = TABLE.read_text().splitlines()
    return {name: kind for kind, name in (line.split() for line in lines if line and not line.startswith("#"))}
