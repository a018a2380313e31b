"""The format of an API key's secret: `pm_<env>_` + 30 random base62 characters + a
6-character CRC32 checksum (`<env>`: `live` or `test` by the deployment, `sandbox` for a sandbox
tenant's keys, whatever the deployment), so secret scanners can spot it and a mistyped key is refused
without a database read. Only the SHA-256 of a key is stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
import zlib

from chalicelib import config

_BASE62 = string.digits + string.ascii_letters
_RANDOM_LENGTH = 30
_CHECKSUM_LENGTH = 6


def _base62(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, rest = divmod(number, 62)
        chars.append(_BASE62[rest])
    return "".join(reversed(chars))


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode()), _CHECKSUM_LENGTH)


SANDBOX = "sandbox"
ENVIRONMENTS = ("live", "test", SANDBOX)


def new_secret(*, sandbox: bool = False) -> str:
    body = "".join(secrets.choice(_BASE62) for _ in range(_RANDOM_LENGTH))
    return f"pm_{SANDBOX if sandbox else config.key_environment()}_{body}{_checksum(body)}"


def well_formed(secret: str) -> bool:
    parts = secret.split("_")
    if len(parts) != 3 or parts[0] != "pm" or parts[1] not in ENVIRONMENTS:
        return False
    tail = parts[2]
    if len(tail) != _RANDOM_LENGTH + _CHECKSUM_LENGTH or any(c not in _BASE62 for c in tail):
        return False
    return hmac.compare_digest(_checksum(tail[:_RANDOM_LENGTH]), tail[_RANDOM_LENGTH:])


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
