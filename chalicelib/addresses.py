"""E-mail addresses as the service keys them: compared without case or surrounding blanks, and
stored (in keys, counters, file names) only as a SHA-256, never as written."""

from __future__ import annotations

import hashlib


def normalised(address: str) -> str:
    return address.strip().lower()


def address_hash(address: str) -> str:
    return hashlib.sha256(normalised(address).encode()).hexdigest()
