"""Stream records that kept failing: kept in the table for an operator to look at and
replay (`python -m chalicelib.events.deadletters [list|replay]`)."""

from __future__ import annotations

import json
import sys
from typing import Any

from chalicelib import clock
from chalicelib.events.stream import handle_record
from chalicelib.store.model import Item

DLQ_PK = "deadletter#stream"


def store(record: dict[str, Any], error: str, attempts: int) -> None:
    sequence = str((record.get("dynamodb") or {}).get("SequenceNumber", clock.now_iso()))
    Item(
        DLQ_PK,
        sequence,
        type="deadLetter",
        data={"record": json.dumps(record, default=str), "error": error, "attempts": attempts},
        createdAt=clock.now_iso(),
    ).save()


def pending() -> list[Item]:
    return list(Item.query(DLQ_PK, consistent_read=True))


def replay() -> tuple[int, int]:
    """Run every dead letter through the stream handler again; those that pass are removed."""
    done = failed = 0
    for item in pending():
        try:
            handle_record(json.loads(item.data_dict()["record"]))
        except Exception:  # noqa: BLE001 - it stays for the next replay
            failed += 1
            continue
        item.delete()
        done += 1
    return done, failed


if __name__ == "__main__":
    if sys.argv[1:] == ["replay"]:
        done, failed = replay()
        print(f"replayed {done}, still failing {failed}")
    else:
        for item in pending():
            print(item.sk, item.data_dict()["error"])
