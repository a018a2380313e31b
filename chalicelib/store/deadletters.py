"""Dead letters: stream records that kept failing, kept for an operator to look at and replay
(events/deadletters.py).

  dead letter   PK "deadletter#stream"   SK <stream sequence number>   type "deadLetter"

One partition holds them all, in the stream's order; there are few (each is a fault to mend)."""

from __future__ import annotations

from typing import TypedDict, cast

from chalicelib import clock
from chalicelib.store.model import Item

DEAD_LETTER_PK = "deadletter#stream"


class DeadLetter(TypedDict):
    record: str  # the stream record, JSON text
    error: str
    attempts: int


def save_dead_letter(sequence: str, letter: DeadLetter) -> None:
    Item(DEAD_LETTER_PK, sequence, type="deadLetter", data=letter, createdAt=clock.now_iso()).save()


def pending() -> dict[str, DeadLetter]:
    """Every dead letter by its sequence number, oldest first."""
    return {item.sk: cast(DeadLetter, item.data_dict()) for item in Item.query(DEAD_LETTER_PK, consistent_read=True)}


def remove_dead_letter(sequence: str) -> None:
    Item(DEAD_LETTER_PK, sequence).delete()
