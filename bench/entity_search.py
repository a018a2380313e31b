"""Entity search benchmark (issue 53): a tenant of 100,000 contacts and 20,000 units; `search`'s
p50 and p95 on the embedded engine (SQLite FTS5 in a file), in process and over HTTP, for a handful
of queries as people type them; the index's throughput on a rebuild (`pmctl search reindex`'s path,
entities a second) and its size on disk; and, side by side in the same run, the list query doing the
same by paging: `contacts` with its largest page (1,000) paged to the end, the name filtered on the
client.

The tenant: 100 objects (German street addresses), and contacts and units through the upserts, a few
hundred of each; then those items copied under new ids and aliases with raw BatchWriteItem until the
tenant holds the entities asked for. Each copy is what the upserts store (the entity item, its alias
item and, for a unit, its reference edge to its object, every key and index attribute rewritten
alike), with a name, e-mail address, phone number and address of its own (a contact; Faker, de_DE,
seeded: the same people every run) or a number of its own (a unit). The stack's change stream is not
started, so nothing indexes the writes as they land: the index holds what the timed rebuild wrote,
and nothing else writes it while it runs or while the searches are timed.

    .venv/bin/python -m bench.entity_search [contacts units]     (make bench; PM_BENCH_SMOKE=1: tiny)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
from faker import Faker

from bench.harness import SMOKE, Service, call, p, record, succeeding, table, timed
from chalicelib import auth, config, dispatch, ids, registry, resources
from chalicelib.context import CallContext
from chalicelib.entity_search import engine, follow
from chalicelib.ops.pmctl import operator_in  # who `pmctl search reindex` acts as in a tenant

BASE = "/propertymanagement/v2"
OBJECTS = 6 if SMOKE else 100
SEED_CONTACTS = 100 if SMOKE else 300  # through contacts.upsert; the rest copies of them
SEED_UNITS = 30 if SMOKE else 500  # through units.upsert; the rest copies of them
REPEAT = 3 if SMOKE else 50  # timed searches per query and channel
PAGINGS = 1 if SMOKE else 3  # full pagings of the contact list per channel, when they fit in PAGING_BUDGET
PAGING_BUDGET = 900  # seconds per channel; past it the paging is taken from its first and last page
PAGE = 1000  # the contact list's largest page
PACE = 90  # requests a second of one key at most: its default limit is 100
SEED = 53  # Faker's and the shuffles' seed: the same tenant every run
SURNAME = "Schäfer"  # a surname of Faker's de_DE list, also the list paging's name

_TO_ASCII = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", " ": "", "'": ""})


class People:
    """Contacts' fields as an upsert takes them: German names, addresses, phones, e-mail addresses."""

    def __init__(self) -> None:
        self.fake = Faker("de_DE")
        self.fake.seed_instance(SEED)
        self.rng = random.Random(SEED)

    def person(self) -> dict[str, Any]:
        fake, rng = self.fake, self.rng
        female = rng.random() < 0.5
        first = fake.first_name_female() if female else fake.first_name_male()
        last = fake.last_name()
        local = f"{first}.{last}".lower().translate(_TO_ASCII)
        return {
            "personType": "natural",
            "salutation": "ms" if female else "mr",
            "firstName": first,
            "lastName": last,
            "emails": [{"address": f"{local}@{fake.free_email_domain()}", "type": "private"}],
            "phones": [{"number": fake.phone_number(), "type": "landline"}],
            "address": {
                "street": fake.street_name(),
                "houseNumber": str(rng.randint(1, 180)) + rng.choice(["", "", "", "", "a", "b"]),
                "postalCode": fake.postcode(),
                "city": fake.city(),
            },
        }

    def place(self) -> tuple[str, str]:
        return self.fake.street_name(), str(self.rng.randint(1, 120))


def main(contacts: int = 100_000, units: int = 20_000) -> str:
    os.environ["PM_REQUEST_LOG"] = "logs"  # as the template sets it for the HTTP functions (lines dropped here)
    folder = tempfile.mkdtemp(prefix="pm-bench-entity-search-")
    path = engine.file_in(folder)
    engine.use(path)  # a file of its own, so its size shows (the HTTP server in this process searches it too)
    service = Service(moto_process=True)
    try:
        return run(service, path, contacts, units)
    finally:
        service.stop()
        engine.use(":memory:")  # the file closed
        shutil.rmtree(folder, ignore_errors=True)


def _ok(service: Service, key: str, name: str, body: dict[str, Any]) -> Any:
    with contextlib.redirect_stdout(io.StringIO()):  # the request log's lines dropped
        status, answer = service.call_admitted("POST", f"{BASE}/command/{name}", body, key=key)
    assert status == 200, answer
    assert answer["counts"]["failed"] == 0, answer
    return answer


# --- the tenant ---------------------------------------------------------------------------


@dataclass
class Seeded:
    streets: dict[str, str]  # object alias -> its street
    person: str  # the first contact's full name
    surnamed: int = 0  # contacts whose lastName is SURNAME


def _seed(service: Service, tenant_id: str, key: str, contacts: int, units: int) -> Seeded:
    """The tenant's objects, contacts and units."""
    people = People()
    streets: dict[str, str] = {}
    objects = []
    for n in range(OBJECTS):
        street, house = people.place()
        streets[f"obj-{n}"] = street
        city = people.fake.city()
        objects.append(
            {
                "alias": f"obj-{n}",
                "name": f"{street} {house}",
                "type": "rental",
                "address": {"street": street, "houseNumber": house, "postalCode": people.fake.postcode(), "city": city},
            }
        )
    _ok(service, key, "objects.upsert", {"items": objects})
    seed_contacts = min(SEED_CONTACTS, contacts)
    made = [{"alias": _contact_alias(n), **people.person()} for n in range(seed_contacts)]
    for start in range(0, len(made), 100):
        _ok(service, key, "contacts.upsert", {"items": made[start : start + 100]})
    seed_units = min(SEED_UNITS, units)
    unit_items = [
        {"alias": _unit_alias(n), "objectId": f"obj-{n % OBJECTS}", "number": _unit_number(n), "type": "apartment"}
        for n in range(seed_units)
    ]
    for start in range(0, len(unit_items), 500):
        _ok(service, key, "units.upsert", {"items": unit_items[start : start + 500]})

    raw = boto3.client("dynamodb", region_name=config.region())
    stored = _stored_by_entity(raw, tenant_id)
    contact_seeds = [stored[i] for i in sorted(stored) if i.startswith("con_")]
    unit_seeds = [stored[i] for i in sorted(stored) if i.startswith("uni_")]
    assert len(contact_seeds) == seed_contacts and len(unit_seeds) == seed_units, (len(contact_seeds), len(unit_seeds))

    seeded = Seeded(streets, f"{made[0]['firstName']} {made[0]['lastName']}")
    seeded.surnamed = sum(1 for person in made if person["lastName"] == SURNAME)

    def copies() -> Any:
        for n in range(seed_contacts, contacts):
            person = people.person()
            seeded.surnamed += person["lastName"] == SURNAME
            yield from _copy_contact(contact_seeds[n % seed_contacts], n, person)
        for n in range(seed_units, units):
            yield from _copy_unit(unit_seeds[n % seed_units], n)

    batch: list[dict[str, Any]] = []
    for item in copies():
        batch.append({"PutRequest": {"Item": item}})
        if len(batch) == 25:
            _write(raw, batch)
            batch = []
    if batch:
        _write(raw, batch)
    return seeded


def _contact_alias(n: int) -> str:
    return f"kontakt-{n:06d}"


def _unit_alias(n: int) -> str:
    return f"we-{n:05d}"


def _unit_number(n: int) -> str:
    return f"WE {n + 1:05d}"


def _write(raw: Any, puts: list[dict[str, Any]]) -> None:
    answer = raw.batch_write_item(RequestItems={config.table_name(): puts})
    assert not answer.get("UnprocessedItems"), answer


def _stored_by_entity(raw: Any, tenant_id: str) -> dict[str, list[dict[str, Any]]]:
    """The items the upserts wrote for each contact and unit of the tenant (its entity item, its
    alias item, a unit's reference edge), by entity id: one scan of the still small table."""
    found: dict[str, list[dict[str, Any]]] = {}
    for page in raw.get_paginator("scan").paginate(TableName=config.table_name()):
        for item in page["Items"]:
            entity_id = item.get("id", {}).get("S", "")
            if item.get("tenantId", {}).get("S") == tenant_id and entity_id.startswith(("con_", "uni_")):
                found.setdefault(entity_id, []).append(item)
    return found


def _renamed(items: list[dict[str, Any]], prefix: str, alias: str) -> list[dict[str, Any]]:
    """The items of one entity under a new id and alias: every key and attribute holding either."""
    entity = next(item for item in items if item["SK"]["S"] == "entity")
    old_id, old_alias = entity["id"]["S"], _alias_of(entity)
    text = json.dumps(items).replace(old_id, ids.new_id(prefix))
    text = text.replace(f'"{old_alias}"', f'"{alias}"').replace(f'#{old_alias}"', f'#{alias}"')
    return list(json.loads(text))


def _alias_of(entity: dict[str, Any]) -> str:
    stored = entity["aliases"]["M"]["-"]  # a list or a string set, as pynamodb wrote it
    return str(stored["L"][0]["S"] if "L" in stored else sorted(stored["SS"])[0])


def _copy_contact(items: list[dict[str, Any]], n: int, person: dict[str, Any]) -> list[dict[str, Any]]:
    """A contact under a new id and alias, with a person's own name, e-mail address, phone and
    address (every seed has each of these fields, so the copy has the shape its upsert gives)."""
    copied = _renamed(items, "con", _contact_alias(n))
    data = next(item for item in copied if item["SK"]["S"] == "entity")["data"]["M"]
    for field in ("salutation", "firstName", "lastName"):
        data[field] = {"S": person[field]}
    data["emails"]["L"][0]["M"]["address"] = {"S": person["emails"][0]["address"]}
    data["phones"]["L"][0]["M"]["number"] = {"S": person["phones"][0]["number"]}
    data["address"]["M"] = {field: {"S": value} for field, value in person["address"].items()}
    return copied


def _copy_unit(items: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    copied = _renamed(items, "uni", _unit_alias(n))
    next(item for item in copied if item["SK"]["S"] == "entity")["data"]["M"]["number"] = {"S": _unit_number(n)}
    return copied


# --- the measurements ---------------------------------------------------------------------


def _index_bytes(path: str) -> tuple[int, int]:
    wal = f"{path}-wal"
    return os.path.getsize(path), os.path.getsize(wal) if os.path.exists(wal) else 0


def _vocabulary(path: str, word: str) -> tuple[int, int]:
    """The index's terms, and those of about the length of `word` (what its typo pass reads)."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        (every,) = db.execute("SELECT count(*) FROM terms").fetchone()
        (near,) = db.execute(
            "SELECT count(*) FROM terms WHERE length(term) BETWEEN ? AND ?", (len(word) - 1, len(word) + 1)
        ).fetchone()
    return int(every), int(near)


def _queries(streets: dict[str, str], person: str, units: int) -> list[tuple[str, str]]:
    street = streets["obj-1"]
    return [
        ("full surname", SURNAME),
        ("prefix of surnames", "Schm"),
        ("typo (Schlosser, an s missing)", "Schloser"),
        ("first and last name", person),
        ("unit number", _unit_number(units * 5 // 8)),
        ("street of an object", street),
    ]


def _in_process(ctx: CallContext, args: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    op = registry.REGISTRY["search"]
    return lambda: dispatch.run(op, ctx, args)


def _over_http(service: Service, key: str, query: str) -> Callable[[], tuple[int, Any]]:
    path = f"{BASE}/query/search?query={urllib.parse.quote(query)}&limit=10&offset=0"
    return lambda: service.call("GET", path, key=key)


def _say(line: str) -> None:
    """Progress on stderr as each step ends (a long run's figures so far, should a later step fail)."""
    print(f"[entity_search {time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)


def _list_paging(fetch: Callable[[int], dict[str, Any]]) -> tuple[int, int, int]:
    """`contacts` paged to the end, the surname filtered here: pages, contacts seen, matches."""
    offset, pages, seen, matches = 0, 0, 0, 0
    wanted = SURNAME.casefold()
    while True:
        body = fetch(offset)
        pages += 1
        seen += len(body["contacts"])
        matches += sum(1 for contact in body["contacts"] if str(contact.get("lastName", "")).casefold() == wanted)
        following = body["pagination"].get("nextOffset")
        if following is None:
            return pages, seen, matches
        offset = following


def _timed_rebuild(tenant_id: str) -> tuple[dict[str, int], float, float]:
    """follow.reindex as `pmctl search reindex` runs it: the counts, its seconds, and the seconds of
    those the engine's writes took (the rest is reading the table)."""
    index = engine.current()
    put_rows = index.put_rows
    writing = [0.0]

    def timed_put(entries: list[Any]) -> None:
        began = time.perf_counter()
        put_rows(entries)
        writing[0] += time.perf_counter() - began

    index.put_rows = timed_put  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        done = follow.reindex(operator_in(tenant_id))
        return done, time.perf_counter() - started, writing[0]
    finally:
        del index.put_rows  # the engine's own method again


def _moto_peak_mb(service: Service) -> float | None:
    """Peak resident memory of the stack's moto server process (VmHWM), if it runs in one."""
    process = getattr(service.stack, "_process", None)
    if process is None:
        return None
    with open(f"/proc/{process.pid}/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def _paging(
    channel: str, fetch: Callable[[int], dict[str, Any]], contacts: int, seeded: Seeded, search_ms: float
) -> tuple[list[Any], float]:
    """The list's paging to the end on one channel: PAGINGS full pagings when they fit in
    PAGING_BUDGET seconds, else the first and the last page timed and the paging taken as the pages
    times their mean (each page of `contacts` reads every key of the type: store/entities.py,
    list_page, so a deep page costs what the first costs). A row of the table and the seconds."""
    pages = max(1, -(-contacts // PAGE))
    began = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        first = fetch(0)
    first_seconds = time.perf_counter() - began
    assert first["pagination"]["total"] == contacts, first["pagination"]
    if pages * first_seconds * PAGINGS <= PAGING_BUDGET:
        seconds: list[float] = []
        for _ in range(PAGINGS):
            began = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                paged, seen, matches = _list_paging(fetch)
            seconds.append(time.perf_counter() - began)
            assert (paged, seen, matches) == (pages, contacts, seeded.surnamed), (paged, seen, matches)
        paging = sorted(seconds)[len(seconds) // 2]
        how = f"{len(seconds)} full pagings: " + ", ".join(f"{s:.1f}" for s in seconds)
        found = f"{matches:,}"
    else:
        began = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            last = fetch((pages - 1) * PAGE)
        last_seconds = time.perf_counter() - began
        assert len(last["contacts"]) == contacts - (pages - 1) * PAGE and "nextOffset" not in last["pagination"]
        paging = pages * (first_seconds + last_seconds) / 2
        how = f"estimated: {pages} × the mean of the first and last page ({first_seconds:.1f}, {last_seconds:.1f})"
        found = f"({seeded.surnamed:,} in the tenant)"
    row = [channel, f"{pages} of {PAGE:,}", found, how, f"{paging:,.1f}", f"{search_ms:.1f} ms"]
    return [*row, f"{paging * 1000 / search_ms:,.0f}×"], paging


def _latencies_line(in_process: list[float], http: list[float]) -> str:
    return (
        f"in process {p(in_process, 0.5):.1f} / {p(in_process, 0.95):.1f} ms,"
        f" HTTP {p(http, 0.5):.1f} / {p(http, 0.95):.1f} ms"
    )


def run(service: Service, path: str, contacts: int, units: int) -> str:
    resources.load_all()
    tenant_id, key = service.signup()
    started = time.perf_counter()
    seeded = _seed(service, tenant_id, key, contacts, units)
    seeding = time.perf_counter() - started
    _say(f"seeded {contacts:,} contacts, {units:,} units in {seeding:.0f} s")

    done, reindex_seconds, writing_seconds = _timed_rebuild(tenant_id)
    indexed = sum(done.values())
    entities = contacts + units + OBJECTS
    assert done["contact"] == contacts and done["unit"] == units and indexed == entities, done
    file_bytes, wal_bytes = _index_bytes(path)
    terms, near_typo = _vocabulary(path, "schloser")
    _say(
        f"reindexed {sum(done.values()):,} in {reindex_seconds:.1f} s (engine writes {writing_seconds:.1f} s);"
        f" file {file_bytes:,} B, WAL {wal_bytes:,} B; {terms:,} terms ({near_typo:,} of 7-9)"
    )

    ctx = auth.authenticate(f"Bearer {key}")  # the tenant's admin key, as the HTTP path admits it
    search_rows: list[list[Any]] = []
    surname_p50: dict[str, float] = {}
    every: dict[str, list[float]] = {"in process": [], "HTTP": []}
    for label, query in _queries(seeded.streets, seeded.person, units):
        args = {"query": query, "limit": 10, "offset": 0}
        local, remote = _in_process(ctx, args), _over_http(service, key, query)
        with contextlib.redirect_stdout(io.StringIO()):  # the request log's lines dropped
            answer = local()  # warm: the engine's pages, the key cache
            status, over_http = remote()
            assert status == 200 and over_http == answer, (status, over_http)
            in_process = timed(local, REPEAT)
            http = timed(succeeding(remote), REPEAT, per_second=PACE)
        every["in process"] += in_process
        every["HTTP"] += http
        if query == SURNAME:
            surname_p50 = {"in process": p(in_process, 0.5), "HTTP": p(http, 0.5)}
        pagination, top = answer["pagination"], answer["results"][:1]
        _say(f"{query!r}: {_latencies_line(in_process, http)}, total {pagination['total']}")
        search_rows.append(
            [
                label,
                f"`{query}`",
                f"{pagination['total']:,}{' (capped)' if pagination.get('capped') else ''}",
                f"{top[0]['name']} ({top[0]['matched']['field']}, {top[0]['score']})" if top else "(none)",
                f"{p(in_process, 0.5):.1f}",
                f"{p(in_process, 0.95):.1f}",
                f"{p(http, 0.5):.1f}",
                f"{p(http, 0.95):.1f}",
            ]
        )
    overall = [
        f"{p(every['in process'], 0.5):.1f}",
        f"{p(every['in process'], 0.95):.1f}",
        f"{p(every['HTTP'], 0.5):.1f}",
        f"{p(every['HTTP'], 0.95):.1f}",
    ]
    search_rows.append(["all of the above", "", "", "", *overall])

    op = registry.REGISTRY["contacts"]

    def page_in_process(offset: int) -> dict[str, Any]:
        return dispatch.run(op, ctx, {"limit": PAGE, "offset": offset})

    def page_over_http(offset: int) -> dict[str, Any]:
        # a page reads every key of the type: on moto, at 100,000 contacts, longer than the harness's 30 s
        status, body = call(
            service.port, "GET", f"{BASE}/query/contacts?limit={PAGE}&offset={offset}", key=key, timeout=900
        )
        if status != 200:
            raise SystemExit(f"a timed request answered {status}: {body}")
        return dict(body)

    paging_rows: list[list[Any]] = []
    paging_seconds: dict[str, float] = {}
    for channel, fetch in (("in process", page_in_process), ("HTTP", page_over_http)):
        row, paging_seconds[channel] = _paging(channel, fetch, contacts, seeded, surname_p50[channel])
        paging_rows.append(row)
        _say(f"paging {channel}: {row}")

    rate, size = indexed / reindex_seconds, file_bytes + wal_bytes
    moto_mb = _moto_peak_mb(service)
    record(
        f"entity search, {contacts:,} contacts + {units:,} units (embedded)",
        f"search p50 / p95 over {len(search_rows) - 1} queries: in process; over HTTP",
        "interactive",
        f"{overall[0]} / {overall[1]} ms; {overall[2]} / {overall[3]} ms",
    )
    record(
        f"entity search vs contacts paged to the end ({contacts:,})",
        f"`{SURNAME}`: list paging / search p50, over HTTP",
        "the ratio",
        f"{paging_seconds['HTTP']:,.1f} s / {surname_p50['HTTP']:.1f} ms = {paging_rows[-1][-1]}",
    )
    record(
        f"entity search reindex, {indexed:,} entities",
        "entities per second (of them the engine's writes); index size (file + WAL)",
        "",
        f"{rate:,.0f}/s ({indexed / writing_seconds:,.0f}/s); {size / 1e6:.1f} MB"
        f" ({size / indexed:,.0f} bytes an entity)",
    )
    intro = (
        f"Entity search benchmark: a tenant of {contacts:,} contacts, {units:,} units and {OBJECTS} objects "
        f"({SEED_CONTACTS} contacts and {SEED_UNITS} units made by the upserts, the rest copies of them written raw, "
        f"each contact with a name and address of its own; seeded in {seeding:.0f} s), on the embedded engine "
        "(SQLite FTS5, a file in a temporary folder); moto's server in its own process"
        + (f" (its peak resident memory: {moto_mb:,.0f} MB)" if moto_mb else "")
        + f". Each query {REPEAT} times in process (dispatch.run with the tenant's admin key) and {REPEAT} times "
        "over HTTP (GET .../query/search, limit 10, a new connection each), side by side."
    )
    build = table(
        ["entities", "seconds", "entities/s", "engine writes s (entities/s)", "index file", "WAL", "bytes an entity"],
        [
            [
                f"{indexed:,}",
                f"{reindex_seconds:.1f}",
                f"{rate:,.0f}",
                f"{writing_seconds:.1f} ({indexed / writing_seconds:,.0f})",
                f"{file_bytes:,}",
                f"{wal_bytes:,}",
                f"{size / indexed:,.0f}",
            ]
        ],
    )
    searches = table(
        ["query", "asked", "total", "first result", "in process p50", "p95", "HTTP p50", "p95"], search_rows
    )
    paging = table(
        ["list paging", "pages", f"{SURNAME} found", "how (seconds)", "paging s", "search p50", "paging / search"],
        paging_rows,
    )
    return (
        f"{intro}\n\nReindex (follow.reindex, as `pmctl search reindex`; the rest of its time reads the table):"
        f"\n\n{build}\n\nThe index's vocabulary: {terms:,} terms, {near_typo:,} of 7 to 9 characters (what the "
        f"typo pass reads for `Schloser`).\n\nSearch (ms):\n\n{searches}\n\n"
        f"The contact list doing the same: `contacts` limit {PAGE:,} paged to the end, lastName == {SURNAME!r} "
        f"filtered on the client (the ratio: the paging's seconds against the search's p50 for "
        f"`{SURNAME}`):\n\n{paging}"
    )


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:3]]
    if not sizes:
        sizes = [300, 60] if SMOKE else [100_000, 20_000]
    print(main(*sizes))
