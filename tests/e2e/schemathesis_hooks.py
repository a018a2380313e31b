"""Schemathesis hooks for the run over `make serve` (tests/e2e/test_schemathesis.py, loaded by
`st run` through SCHEMATHESIS_HOOKS):

- strategies for the formats the OpenAPI document names whose rule no JSON Schema keyword states
  (an IBAN's, a BIC's and a creditor id's check digits), so the values schemathesis calls valid are;
- `schema_valid_refused_only_by_a_rule`, in place of schemathesis' positive_data_acceptance.

positive_data_acceptance fails every 400 to a request the document calls valid. Most such 400s
here are the records' rules, which OpenAPI 3.0 has no keyword for and which the document states in
words: a period's end before its start, a signature date in the future, a unit of another object, a
lease's roles, a cursor the service never handed out. Those stay 400 `invalid_request` (or their own
code: `invalid_cursor`, `empty_file`, ...), each naming its rule. What the check below still fails is
the service refusing a value by a check the document should have stated: its schema validation
(`validation_failed`), the body's or form's reading (`malformed_json`, `malformed_form`), the
Idempotency-Key's characters (`invalid_idempotency_key`), or a required field refused as empty
("... needs <field>", a minLength the document lacks)."""

from __future__ import annotations

import ast
import functools
import json
import re
import string
import threading
from typing import Any

import schemathesis
from hypothesis import strategies as st

# This Python's (3.11.7) AST constructor is not safe in two threads at once: its recursion-depth
# bookkeeping is shared, and a parse beside another raises SystemError "AST constructor recursion
# depth mismatch" (CPython gh-106905). Hypothesis parses source to describe a strategy's lambdas in
# each of schemathesis' worker threads: a run with two workers errored so on one operation. One parse
# at a time keeps the workers.
_PARSING = threading.Lock()
_parse = ast.parse


@functools.wraps(_parse)
def _parse_alone(*args: Any, **kwargs: Any) -> ast.AST:
    with _PARSING:
        return _parse(*args, **kwargs)


ast.parse = _parse_alone  # type: ignore[assignment]

# Refusals of what the document itself should say: a schema-valid request refused so is the spec's fault.
SPEC_CODES = frozenset({"validation_failed", "malformed_json", "malformed_form", "invalid_idempotency_key"})
NEEDS_FIELD = re.compile(r"^an? [a-z ]+ needs [A-Za-z]+$")


def _mod97(text: str) -> int:
    return int("".join(str(int(char, 36)) for char in text)) % 97


def _check_digits(country: str, body: str) -> str:
    """ISO 7064 mod 97-10 over body + country + '00' (letters as 10..35)."""
    return f"{98 - _mod97(body + country + '00'):02d}"


@st.composite
def _iban(draw: st.DrawFn) -> str:
    bank = draw(st.text(string.digits, min_size=8, max_size=8))
    account = draw(st.text(string.digits, min_size=10, max_size=10))
    body = bank + account  # a German IBAN: 22 characters
    return f"DE{_check_digits('DE', body)}{body}"


@st.composite
def _creditor_id(draw: st.DrawFn) -> str:
    national = draw(st.text(string.digits, min_size=11, max_size=11))
    business = draw(st.sampled_from(["ZZZ", "ABC", "001"]))
    return f"DE{_check_digits('DE', national)}{business}{national}"  # the business code is not checked


_bic = st.builds(
    lambda bank, location, branch: f"{bank}DE{location}{branch}",
    st.text(string.ascii_uppercase, min_size=4, max_size=4),
    st.text(string.ascii_uppercase + string.digits, min_size=2, max_size=2),
    st.sampled_from(["", "XXX"]),
)

schemathesis.openapi.format("iban", _iban())
schemathesis.openapi.format("bic", _bic)
schemathesis.openapi.format("sepa-creditor-id", _creditor_id())


@schemathesis.check
def schema_valid_refused_only_by_a_rule(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> None:
    """A request the document calls valid (a positive case) is refused with 400 only by a rule the
    document states in words, never by a check it should have stated as a schema (module doc)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return
    problem = json.loads(response.content)
    code = problem.get("code")
    assert code not in SPEC_CODES, f"a request the document calls valid was refused {code}: {problem.get('detail')}"
    for error in problem.get("errors") or []:
        assert not NEEDS_FIELD.match(error.get("message", "")), (
            f"{error['path']} refused as empty where the document sets no minLength: {error['message']}"
        )
