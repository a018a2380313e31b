"""The two entity indexes answer alike (issue 53, 4): the embedded one (SQLite FTS5) that `make
serve` and the functional tests use, and the cloud's (OpenSearch: its mapping, analyzer and query
builder, on tests/opensearch_entity_fake.py, which answers by the documented semantics of each
request). One table of cases, each run on both: the rows a search finds (find.py ranks them; the
engine only finds), and what reading, deleting and clearing a tenant leave."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chalicelib.entity_search.engine import Engine, Entry, SqliteEngine
from chalicelib.entity_search.fold import words
from chalicelib.entity_search.opensearch_engine import OpenSearchEngine
from tests.opensearch_entity_fake import fake_client

A, B = "ten_a", "ten_b"


def _entry(tenant: str, type_name: str, entity_id: str, obj: str | None, *fields: tuple[str, str]) -> Entry:
    return Entry(tenant, type_name, entity_id, obj, fields[0][1], tuple(fields))


ROWS = [
    _entry(
        A, "contact", "c_schaefer", None, ("lastName", "Schäfer"), ("firstName", "Anna"), ("email", "anna@example.org")
    ),
    _entry(A, "contact", "c_schaefer2", None, ("lastName", "Schaefer"), ("firstName", "Bernd")),
    _entry(A, "contact", "c_mueller", None, ("lastName", "Müller"), ("phone", "+49 30 1234567")),
    _entry(A, "contact", "c_gross", None, ("companyName", "Groß & Söhne GmbH"), ("city", "Köln")),
    _entry(A, "object", "o_linden", "o_linden", ("name", "WEG Lindenstraße 12"), ("city", "Berlin")),
    _entry(A, "object", "o_eichen", "o_eichen", ("name", "Eichenhof"), ("street", "Hauptstr. 5")),
    _entry(A, "unit", "u_linden_3", "o_linden", ("unitNumber", "WE 3"), ("object", "WEG Lindenstraße 12")),
    _entry(A, "unit", "u_eichen_3", "o_eichen", ("unitNumber", "WE 3"), ("object", "Eichenhof")),
    _entry(A, "document", "d_plan", "o_linden", ("title", "Wirtschaftsplan 2026"), ("fileName", "wp_endfassung.pdf")),
    _entry(B, "contact", "c_b_schaefer", None, ("lastName", "Schäfer"), ("firstName", "Clara")),
]

EVERY_TYPE = ["contact", "object", "unit", "document"]

# (words as the user typed them, types, objectId, tenant) -> the ids found
CASES = [
    ("Schäfer", None, None, A, {"c_schaefer", "c_schaefer2"}),
    ("Schaefer", None, None, A, {"c_schaefer", "c_schaefer2"}),
    ("SCHÄFER anna", None, None, A, {"c_schaefer"}),
    ("anna schäfer", None, None, A, {"c_schaefer"}),  # words in any order
    ("Schafer", None, None, A, {"c_schaefer", "c_schaefer2"}),  # one letter missing
    ("Schäfre", None, None, A, {"c_schaefer", "c_schaefer2"}),  # two neighbours swapped (schaefre)
    ("Scheafer", None, None, A, {"c_schaefer", "c_schaefer2"}),
    ("Schiffer", None, None, A, set()),  # two edits
    ("Mueller", None, None, A, {"c_mueller"}),
    ("Müler", None, None, A, {"c_mueller"}),  # one letter missing, after the folding
    ("Lindenstrasse", None, None, A, {"o_linden", "u_linden_3"}),
    ("Lindenstr. 12", None, None, A, {"o_linden", "u_linden_3"}),
    ("Linden", None, None, A, {"o_linden", "u_linden_3"}),  # a prefix
    ("Hauptstraße", None, None, A, {"o_eichen"}),  # "Hauptstr." indexed as "hauptstrasse"
    ("Gross Koeln", None, None, A, {"c_gross"}),
    ("groß", ["object"], None, A, set()),  # the types asked for only
    ("WE 3", ["unit"], None, A, {"u_linden_3", "u_eichen_3"}),
    ("WE 3", ["unit"], "o_eichen", A, {"u_eichen_3"}),  # at the object only
    ("Wirtschaftsplan", None, "o_linden", A, {"d_plan"}),
    ("endfassung", None, None, A, {"d_plan"}),  # a file name's parts are words
    ("1234567", None, None, A, {"c_mueller"}),
    ("Anan", None, None, A, set()),  # a four-letter word holds no typo
    ("Clara", None, None, A, set()),  # another tenant's row
    ("Schäfer", None, None, B, {"c_b_schaefer"}),
    ("Eichenhof Lindenstraße", None, None, A, set()),  # every word must match
]


def _sqlite() -> Engine:
    return SqliteEngine(":memory:")


def _opensearch() -> Engine:
    client, _ = fake_client()
    return OpenSearchEngine(client, "pm-entities")


@pytest.fixture(params=["sqlite", "opensearch"])
def loaded(request: pytest.FixtureRequest) -> Iterator[Engine]:
    engine = _sqlite() if request.param == "sqlite" else _opensearch()
    engine.put_rows(ROWS)
    yield engine


@pytest.mark.parametrize(("query", "types", "object_id", "tenant", "expected"), CASES)
def test_both_engines_find_the_same_rows(
    loaded: Engine, query: str, types: list[str] | None, object_id: str | None, tenant: str, expected: set[str]
) -> None:
    hits, capped = loaded.search_rows(tenant, words(query), types=types or EVERY_TYPE, object_id=object_id, cap=100)
    assert {hit.id for hit in hits} == expected and not capped


def test_a_search_that_finds_more_than_its_cap_says_so(loaded: Engine) -> None:
    hits, capped = loaded.search_rows(A, words("WE"), types=EVERY_TYPE, object_id=None, cap=1)
    assert len(hits) == 1 and capped


def test_a_hit_carries_its_row(loaded: Engine) -> None:
    (hit,), _ = loaded.search_rows(A, words("Eichenhof"), types=["object"], object_id=None, cap=10)
    assert (hit.type, hit.object_id, hit.name) == ("object", "o_eichen", "Eichenhof")
    assert hit.fields == (("name", "Eichenhof"), ("street", "Hauptstr. 5"))


def test_reindexing_a_row_replaces_it_and_deleting_one_removes_only_it(loaded: Engine) -> None:
    loaded.put_rows([_entry(A, "contact", "c_mueller", None, ("lastName", "Meier"))])
    assert loaded.search_rows(A, words("Müller"), types=EVERY_TYPE, object_id=None, cap=10)[0] == []
    assert [h.id for h in loaded.search_rows(A, words("Meier"), types=EVERY_TYPE, object_id=None, cap=10)[0]] == [
        "c_mueller"
    ]
    loaded.drop_rows(A, ["c_schaefer", "c_never_indexed"])
    found = loaded.search_rows(A, words("Schäfer"), types=EVERY_TYPE, object_id=None, cap=10)[0]
    assert [hit.id for hit in found] == ["c_schaefer2"]


def test_entries_and_clearing_are_per_tenant(loaded: Engine) -> None:
    mine = loaded.tenant_rows(A)
    assert [entry.id for entry in mine] == sorted(row.id for row in ROWS if row.tenant_id == A)
    assert mine == sorted((row for row in ROWS if row.tenant_id == A), key=lambda row: row.id)
    loaded.clear_tenant(A)
    assert loaded.tenant_rows(A) == [] and [entry.id for entry in loaded.tenant_rows(B)] == ["c_b_schaefer"]


def test_a_tenant_of_more_rows_than_a_page_is_read_whole() -> None:
    """entries() reads OpenSearch in pages (search_after): every row once, in id order."""
    engine = _opensearch()
    many = [_entry(A, "contact", f"c_{n:05d}", None, ("lastName", f"Name{n}")) for n in range(2_345)]
    engine.put_rows(many)
    assert [entry.id for entry in engine.tenant_rows(A)] == [row.id for row in many]


def test_before_anything_is_written_a_search_finds_nothing_and_creates_no_index() -> None:
    """The functions that only search (REST, MCP) may not create the index (infra/policies.py):
    before the stream's first write there is none, and a search or a read of a tenant is empty."""
    client, fake = fake_client()
    engine = OpenSearchEngine(client, "pm-entities")
    assert engine.search_rows(A, words("Schäfer"), types=EVERY_TYPE, object_id=None, cap=10) == ([], False)
    assert engine.tenant_rows(A) == []
    assert fake.indices == {} and all(method != "PUT" for method, _, _ in fake.requests)
    engine.put_rows(ROWS)
    assert "pm-entities" in fake.indices
