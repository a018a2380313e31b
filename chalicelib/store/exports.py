"""Exports of a tenant (exports.create, the export worker): the export's record and the tenant's
register of running exports.

  export   PK = <tenant>#<exportId>   SK = "export"    status, counts, who asked, its holder (TTL)
  runs     PK = <tenant>#exports      SK = "runs"      the running exports: {holder: {exportId, until}} (TTL)

A holder is the key that asked, or its integration (`holder_of`): each holder has one running export,
and the tenant at most a ceiling of them (config.max_running_exports), so one key cannot keep the
tenant's other keys and integrations from exporting. An export is written with its place in the
register in one transaction, which holds only if no other write changed the register since it was read
(its version), so concurrent creates cannot pass either limit between them. A place lasts while its
export waits in the queue (PENDING_SECONDS); once a worker starts the export it is a lease of
config.EXPORT_LEASE_SECONDS that the worker renews as it writes (`renew`), so the place of a worker that
died ends with it, a lease later, and the record then reads as failed; the worker releases the place
when it settles the export."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import UpdateError

from chalicelib import clock, config
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Conflict
from chalicelib.store.model import Item, Transaction, TransactionCancelled

EXPORT_SK = "export"
RUNS_SK = "runs"
PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"
SETTLED = (DONE, FAILED)
# A queued export keeps its place this long before a worker starts it (its message waits for a worker,
# or comes back after one died before starting it); past it, unstarted, it has failed.
PENDING_SECONDS = 3 * 3600
MAX_ATTEMPTS = 3
CREATE_TRIES = 3  # reads and conditional writes of the register before a create gives up (409 write_conflict)


@dataclass(frozen=True)
class Export:
    tenant_id: str
    export_id: str
    data: dict[str, Any]
    created_at: str
    expires_at: str

    @property
    def expired(self) -> bool:
        """Past its keeping (DynamoDB's TTL removes the record within a day or two after)."""
        return self.expires_at <= clock.now_iso()

    @property
    def status(self) -> str:
        """The export's status; one whose worker never settled it before its place lapsed has failed."""
        status = str(self.data.get("status"))
        if status not in SETTLED and self.data.get("lockUntil", "") < clock.now_iso():
            return FAILED
        return status

    @property
    def holder(self) -> str | None:
        """Whose place in the register the export holds (None: an export from before the register)."""
        holder = self.data.get("holder")
        return str(holder) if holder else None


@dataclass(frozen=True)
class Busy:
    """Why an export was not started: the holder's own running export (`running`), or none of its own
    and the tenant at its ceiling (`running` None); `held` the tenant's running exports."""

    running: str | None
    held: int


def holder_of(ctx: CallContext) -> str:
    """Who holds a running export: an integration's keys together, else each key on its own."""
    return f"integration:{ctx.integration_id}" if ctx.integration_id else f"key:{ctx.key_id}"


def _export_key(tenant_id: str, export_id: str) -> tuple[str, str]:
    return f"{tenant_id}#{export_id}", EXPORT_SK


def _runs_key(tenant_id: str) -> tuple[str, str]:
    return f"{tenant_id}#exports", RUNS_SK


def _expiry(days: int = config.EXPORT_KEEP_DAYS) -> dt.datetime:
    return clock.now() + dt.timedelta(days=days)


def _runs(tenant_id: str) -> tuple[dict[str, dict[str, Any]], int | None]:
    """The register's entries (lapsed ones too) and its version (None: the tenant has none yet)."""
    try:
        item = Item.get(*_runs_key(tenant_id), consistent_read=True)
    except Item.DoesNotExist:
        return {}, None
    return dict(item.data_dict().get("runs") or {}), int(item.version)


def _live(runs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    now = clock.now_iso()
    return {holder: run for holder, run in runs.items() if str(run.get("until", "")) >= now}


def running(tenant_id: str) -> dict[str, str]:
    """The tenant's running exports: holder -> export id (the lapsed ones left out)."""
    return {holder: str(run.get("exportId", "")) for holder, run in _live(_runs(tenant_id)[0]).items()}


def create(ctx: CallContext, export_id: str, data: dict[str, Any], ceiling: int) -> Busy | None:
    """The export's record (pending) and its holder's place in the register; when the holder has a
    running export, or the tenant `ceiling` of them, nothing is written and Busy says which."""
    holder = holder_of(ctx)
    for _ in range(CREATE_TRIES):
        runs, version = _runs(ctx.tenant_id)
        live = _live(runs)  # lapsed places are dropped by this write
        if holder in live:
            return Busy(str(live[holder].get("exportId", "")) or "unknown", len(live))
        if len(live) >= ceiling:
            return Busy(None, len(live))
        now, until = clock.now_iso(), clock.iso_in(PENDING_SECONDS)
        record = Item(
            *_export_key(ctx.tenant_id, export_id),
            type="export",
            id=export_id,
            tenantId=ctx.tenant_id,
            data={**data, "holder": holder, "status": PENDING, "attempts": 0, "lockUntil": until},
            createdAt=now,
            updatedAt=now,
            changedBy=ctx.stamp(),
            expiresAt=_expiry(),
        )
        places = {**live, holder: {"exportId": export_id, "until": until}}
        try:
            with Transaction() as tx:
                tx.save(record, condition=Item.pk.does_not_exist(), label="export")
                if version is None:
                    register = Item(
                        *_runs_key(ctx.tenant_id),
                        type="exportRuns",
                        tenantId=ctx.tenant_id,
                        data={"runs": places},
                        createdAt=now,
                        expiresAt=_expiry(1),
                    )
                    tx.save(register, condition=Item.pk.does_not_exist(), label="runs")
                else:
                    tx.update(
                        Item(*_runs_key(ctx.tenant_id)),
                        actions=[
                            Item.data["runs"].set(places),
                            Item.version.add(1),
                            Item.expiresAt.set(_expiry(1)),
                        ],
                        condition=Item.version == version,
                        label="runs",
                    )
        except TransactionCancelled as cancelled:
            if "runs" not in cancelled.failed:
                raise
            continue  # another create, a start, a renewal or a settle changed the register: read it again
        return None
    raise Conflict("Starting the export collided with other exports of this tenant; retry.", code=codes.WRITE_CONFLICT)


def get(tenant_id: str, export_id: str) -> Export | None:
    try:
        item = Item.get(*_export_key(tenant_id, export_id), consistent_read=True)
    except Item.DoesNotExist:
        return None
    if item.type != "export" or item.tenantId != tenant_id:
        return None
    expires = clock.iso(item.expiresAt) if item.expiresAt else ""
    return Export(tenant_id, export_id, item.data_dict(), item.createdAt or "", expires)


def start(export: Export) -> int | None:
    """Mark the export running, count the attempt and turn its place into the worker's lease
    (config.EXPORT_LEASE_SECONDS); None when it is settled already (a repeated message), past its
    attempts, or its place has lapsed (a worker died with it, or it waited past PENDING_SECONDS):
    then it is marked failed."""
    data: Any = Item.data
    now = clock.now_iso()
    lease = clock.iso_in(config.EXPORT_LEASE_SECONDS)
    try:
        with Transaction() as tx:
            tx.update(
                Item(*_export_key(export.tenant_id, export.export_id)),
                actions=[
                    data["status"].set(RUNNING),
                    data["attempts"].add(1),
                    data["lockUntil"].set(lease),
                    Item.updatedAt.set(now),
                ],
                condition=data["status"].is_in(PENDING, RUNNING) & (data["attempts"] < MAX_ATTEMPTS),
                label="export",
            )
            _hold(tx, export, lease, now)
    except TransactionCancelled:
        again = get(export.tenant_id, export.export_id)
        if again is not None and again.data.get("status") not in SETTLED:
            settle(again, FAILED, error="The export's worker stopped before it finished; start a new export.")
        return None
    item = Item.get(*_export_key(export.tenant_id, export.export_id), consistent_read=True)
    if item.data_dict().get("startedAt") is None:
        item.update(actions=[data["startedAt"].set(now)])
    return int(item.data_dict()["attempts"])


def renew(export: Export) -> bool:
    """The running export's lease, another config.EXPORT_LEASE_SECONDS from now (the worker, as it
    writes); False when its place is gone (it lapsed: the export reads as failed already)."""
    data: Any = Item.data
    now = clock.now_iso()
    lease = clock.iso_in(config.EXPORT_LEASE_SECONDS)
    try:
        with Transaction() as tx:
            tx.update(
                Item(*_export_key(export.tenant_id, export.export_id)),
                actions=[data["lockUntil"].set(lease), Item.updatedAt.set(now)],
                condition=(data["status"] == RUNNING) & (data["lockUntil"] >= now),
                label="export",
            )
            _hold(tx, export, lease, now)
    except TransactionCancelled:
        return False
    return True


def _hold(tx: Transaction, export: Export, until: str, now: str) -> None:
    """Inside `tx`: the export's place in the register lasts until `until`, on the condition that it is
    still the export's and has not lapsed (an export from before the register has none)."""
    holder = export.holder
    if holder is None:
        return
    runs: Any = Item.data["runs"]
    tx.update(
        Item(*_runs_key(export.tenant_id)),
        actions=[runs[holder]["until"].set(until), Item.version.add(1), Item.expiresAt.set(_expiry(1))],
        condition=(runs[holder]["exportId"] == export.export_id) & (runs[holder]["until"] >= now),
        label="runs",
    )


def settle(export: Export, status: str, *, error: str | None = None, **facts: Any) -> None:
    """The export done (its counts, file, size) or failed (why), kept EXPORT_KEEP_DAYS from now
    as its file is; its place in the register released."""
    data: Any = Item.data
    now = clock.now_iso()
    actions = [
        data["status"].set(status),
        data["finishedAt"].set(now),
        Item.updatedAt.set(now),
        Item.expiresAt.set(_expiry()),
        *(data[name].set(value) for name, value in facts.items()),
    ]
    if error is not None:
        actions.append(data["error"].set(error))
    Item(*_export_key(export.tenant_id, export.export_id)).update(actions=actions)
    holder = export.holder
    if holder is None:
        return
    runs: Any = Item.data["runs"]
    try:
        Item(*_runs_key(export.tenant_id)).update(
            actions=[runs[holder].remove(), Item.version.add(1)],
            condition=runs[holder]["exportId"] == export.export_id,
        )
    except UpdateError as err:
        if getattr(err, "cause_response_code", None) != "ConditionalCheckFailedException":
            raise  # else: the place lapsed and another export of the holder holds it now
