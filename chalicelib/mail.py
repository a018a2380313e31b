"""Mail the service sends to people (sign-up codes, sign-in codes, invitations): through Amazon
SES in the cloud, into the outbox folder locally. One message is plain text (German, then
English: the service does not know a reader's language before they choose one).

The outbox holds one JSON file per message, named so that a listing sorts oldest first and a
recipient's messages are found by name alone (`<time>-<hash of the address>.json`). `make
serve` prints each message as it is written; `pmctl --local outbox` and the console's local
page /console/outbox show them. The outbox exists only where no SES sender is configured."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from chalicelib import clock, config
from chalicelib.addresses import address_hash
from chalicelib.log import logger


@dataclass(frozen=True)
class Message:
    to: str
    subject: str
    text: str
    sent_at: str = ""


def address_tag(address: str) -> str:
    """A short, stable tag of an address (case-insensitive) for outbox file names and counters."""
    return address_hash(address)[:16]


def send(to: str, subject: str, text: str) -> None:
    sender = config.mail_sender()
    if sender:
        _send_ses(sender, to, subject, text)
        # Neither subject nor text: both hold codes. The recipient as its tag (no address either).
        logger.info("mail sent", extra={"recipient": address_tag(to)})
    else:
        _write_outbox(Message(to=to, subject=subject, text=text, sent_at=clock.now_iso()))


def _send_ses(sender: str, to: str, subject: str, text: str) -> None:
    import boto3  # cold start: boto3 loads with the first mail

    boto3.client("sesv2", region_name=config.region()).send_email(
        FromEmailAddress=sender,
        Destination={"ToAddresses": [to]},
        Content={
            "Simple": {
                "Subject": {"Data": subject, "Charset": "UTF-8"},
                "Body": {"Text": {"Data": text, "Charset": "UTF-8"}},
            }
        },
    )


def _outbox() -> Path:
    return Path(config.outbox_dir())


def _write_outbox(message: Message) -> None:
    folder = _outbox()
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{time.time_ns():020d}-{address_tag(message.to)}.json"
    partial = folder / f".{name}.tmp"
    partial.write_text(json.dumps(asdict(message), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, folder / name)  # whole or absent: a reader never sees half a message
    if config.print_outbox():  # make serve: the developer's terminal is the mailbox
        print(f"\n--- mail to {message.to}: {message.subject}\n{message.text}\n--- ({folder / name})\n", flush=True)


def outbox(to: str | None = None, limit: int = 50, folder: str | None = None) -> list[Message]:
    """The newest messages of the local outbox first (of one recipient, when `to` is given);
    `folder` reads another service's outbox (a `make serve` of its own state folder)."""
    where = Path(folder) if folder else _outbox()
    if not where.is_dir():
        return []
    suffix = f"-{address_tag(to)}.json" if to else ".json"
    names = sorted((n for n in os.listdir(where) if n.endswith(suffix) and not n.startswith(".")), reverse=True)
    found = []
    for name in names[:limit]:
        data: dict[str, Any] = json.loads((where / name).read_text(encoding="utf-8"))
        found.append(Message(**data))
    return found
