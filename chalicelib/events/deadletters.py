"""Stream records that kept failing: kept in the table (store/deadletters.py) for an operator
to look at and replay (`python -m chalicelib.events.deadletters [list|replay]`)."""

from __future__ import annotations

import json
import sys
from typing import Any

from chalicelib import clock
from chalicelib.events.stream import handle_record
from chalicelib.store.deadletters import pending, remove_dead_letter, save_dead_letter


def store(record: dict[str, Any], error: str, attempts: int) -> None:
    sequence = str((record.get("dynamodb") or {}).get("SequenceNumber", clock.now_iso()))
    save_dead_letter(sequence, {"record": json.dumps(record, default=str), "error": error, "attempts": attempts})


def replay() -> tuple[int, int]:
    """Run every dead letter through the stream handler again; those that pass are removed."""
    done = failed = 0
    for sequence, letter in pending().items():
        try:
            handle_record(json.loads(letter["record"]))
        except Exception:  # noqa: BLE001 - it stays for the next replay
            failed += 1
            continue
        remove_dead_letter(sequence)
        done += 1
    return done, failed


if __name__ == "__main__":
    if sys.argv[1:] == ["replay"]:
        done, failed = replay()
        print(f"replayed {done}, still failing {failed}")
    else:
        for sequence, letter in pending().items():
            print(sequence, letter["error"])
