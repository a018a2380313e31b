"""The orphan sweep: compares the upload bucket with the table and reports what does not
match, so nothing is silently lost or kept.

  orphan file     a stored file no document or UVI points at, and no pending upload awaits
                  (a crash between writing a file and its entity, a refused upload whose
                  removal failed, a file dropped under an unreserved key)
  missing file    a document or UVI whose file is not in the bucket (must never happen)

Files younger than the grace period are left out: a direct upload writes its file a moment
before its entity, and a bulk upload's file waits for its queue message.

    python -m chalicelib.uploads.sweep [--delete-orphans] [--grace-minutes 15]

The cloud runs it daily (app.py: sweep_uploads) and logs the report; deleting is a decision
for an operator."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from chalicelib import clock
from chalicelib.store import uploads as upload_store
from chalicelib.uploads import files

GRACE = dt.timedelta(minutes=15)


@dataclass
class Report:
    files_checked: int = 0
    entities_checked: int = 0
    in_flight: int = 0
    orphan_files: list[str] = field(default_factory=list)
    missing_files: list[upload_store.FileReference] = field(default_factory=list)
    deleted: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "filesChecked": self.files_checked,
            "entitiesChecked": self.entities_checked,
            "inFlight": self.in_flight,
            "orphanFiles": self.orphan_files,
            "missingFiles": self.missing_files,
            "deleted": self.deleted,
        }


def stored_files(older_than: dt.datetime) -> Iterator[tuple[str, bool]]:
    """Every key of an entity's file in the bucket, and whether it is older than the grace period
    (exports' files are no entity's: the bucket's lifecycle expires them)."""
    for obj in files.stored():
        if not obj["Key"].startswith(files.EXPORT_PREFIX):
            yield obj["Key"], obj["LastModified"] < older_than


def sweep(*, delete_orphans: bool = False, grace: dt.timedelta = GRACE) -> Report:
    report = Report()
    older_than = clock.now() - grace
    keys = dict(stored_files(older_than))
    report.files_checked = len(keys)
    referenced: set[str] = set()
    for holder in upload_store.entities_with_files():
        report.entities_checked += 1
        referenced.add(holder["fileKey"])
        if holder["fileKey"] not in keys:
            report.missing_files.append(holder)
    candidates = [key for key, old in keys.items() if old and key not in referenced]
    report.in_flight = sum(1 for key, old in keys.items() if not old and key not in referenced)
    for key in candidates:
        if _awaited(key):
            report.in_flight += 1
            continue
        report.orphan_files.append(key)
        if delete_orphans:
            files.delete(key)
            report.deleted += 1
    return report


def _awaited(key: str) -> bool:
    """A bulk upload's file whose reservation is still pending (its message is queued or
    being retried) or was registered after the scan read the entities."""
    parsed = files.parse_upload_key(key)
    if parsed is None:
        return False
    reservation = upload_store.get_reservation(*parsed)
    return reservation is not None and reservation.data.get("status") in (upload_store.PENDING, upload_store.REGISTERED)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Report (and optionally delete) upload files no entity points at, "
        "and entities whose file is missing."
    )
    parser.add_argument("--delete-orphans", action="store_true", help="delete the orphan files found")
    parser.add_argument(
        "--grace-minutes",
        type=float,
        default=GRACE.total_seconds() / 60,
        help="leave files younger than this alone (default 15)",
    )
    args = parser.parse_args(argv)
    report = sweep(delete_orphans=args.delete_orphans, grace=dt.timedelta(minutes=args.grace_minutes))
    print(json.dumps(report.as_dict(), indent=2))
    return 1 if report.missing_files else 0


if __name__ == "__main__":
    raise SystemExit(main())
