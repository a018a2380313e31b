"""Keeps the local upload bucket's files on disk beside the table's state, so `make serve`
restarts with every document's file (moto's S3 lives in memory).

Only keys the service itself makes are mirrored (tenant/documents/id, tenant/uploads/batch/
id: ids and slashes only), so no key can point outside the folder. Each file is written to a
temporary name and renamed, like the state file."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

from chalicelib.store.uploads import UPLOAD_PREFIX
from chalicelib.uploads import files

_SAFE_KEY = re.compile(
    r"^[a-z]{2,5}_[0-9A-Z]{26}/(documents/[a-z]{2,5}_[0-9A-Z]{26}|uploads/[a-z]{2,5}_[0-9A-Z]{26}/[a-z]{2,5}_[0-9A-Z]{26})$"
)


def save(folder: Path) -> int:
    """Write files that are new in the bucket, drop those gone from it; the count kept."""
    wanted = {obj["Key"]: obj["Size"] for obj in files.stored() if _SAFE_KEY.match(obj["Key"])}
    for key, size in wanted.items():
        target = folder / key
        if target.exists() and target.stat().st_size == size:
            continue  # keys are never reused for other content
        target.parent.mkdir(parents=True, exist_ok=True)
        body = files.s3().get_object(Bucket=files.bucket(), Key=key)["Body"].read()
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".file-")
        with os.fdopen(fd, "wb") as out:
            out.write(body)
        os.replace(tmp, target)
    if folder.exists():
        for path in folder.rglob("*"):
            if path.is_file() and path.relative_to(folder).as_posix() not in wanted:
                path.unlink()
    return len(wanted)


def load(folder: Path) -> dict[str, str | None]:
    """Put the saved files back into the bucket (before S3 notifies the upload queue);
    answers each key's new S3 version (moto cannot restore the old ones)."""
    restored: dict[str, str | None] = {}
    if not folder.exists():
        return restored
    for path in folder.rglob("*"):
        key = path.relative_to(folder).as_posix()
        if path.is_file() and _SAFE_KEY.match(key):
            restored[key] = files.put(key, path.read_bytes(), "application/octet-stream")
    return restored


def repin(items: list[dict[str, Any]], restored: dict[str, str | None]) -> None:
    """Point restored table items (DynamoDB JSON) at their files' new versions: entities'
    fileVersion and registered reservations' data.version."""
    for item in items:
        key = item.get("fileKey", {}).get("S")
        if key in restored and "fileVersion" in item and restored[key]:
            item["fileVersion"] = {"S": restored[key]}
        sk, pk = item.get("SK", {}).get("S", ""), item.get("PK", {}).get("S", "")
        data = item.get("data", {}).get("M", {})
        if sk.startswith(UPLOAD_PREFIX) and "version" in data:
            upload = f"{pk.replace('#', '/uploads/', 1)}/{sk.removeprefix(UPLOAD_PREFIX)}"
            if restored.get(upload):
                data["version"] = {"S": restored[upload]}
