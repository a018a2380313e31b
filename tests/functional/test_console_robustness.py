"""No console page breaks on what a person (or anyone) can put in its address: every GET route,
with every query parameter a page reads (found in the pages' source) set to junk, answers a page,
never a 500. Query values reach notices and texts (`?done=`, `?role=`, `?reason=`): a value the
page does not know must fall back, not fail."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest

from chalicelib.console import web
from chalicelib.console.app import load_pages
from tests.client import Tenant
from tests.console_client import owner_of

PAGES = Path(__file__).resolve().parents[2] / "chalicelib" / "console" / "pages"
JUNK = ["zzz", "", "-1", "99999999999999999999", "<script>x</script>", "role.owner", "ü" * 300, "1e400"]


def _query_names() -> set[str]:
    found = set()
    for path in PAGES.glob("*.py"):
        found |= set(re.findall(r"""request\.query(?:\.get\(|\[)["'](\w+)["']""", path.read_text()))
    return found


def _known_values() -> set[str]:
    """The values the pages test query parameters against (`done in ("invited", ...)`): with
    one of them a notice shows, and the notice's other parameters must hold junk safely."""
    found = set()
    for path in PAGES.glob("*.py"):
        for group in re.findall(r"\bin \(([^()]*)\)", path.read_text()):
            found |= set(re.findall(r"""["'](\w+)["']""", group))
    return found


@pytest.mark.slow
def test_no_console_page_fails_on_junk_in_its_address(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    contact = tenant.contact(lastName="Robust")
    values = {
        "grant": "grt_x",
        "sandbox": "ten_x",
        "key": "key_x",
        "webhook": "whk_x",
        "record": "aud_x",
        "member": "mem_x",
        "tenant": "ten_x",
        "plural": "contacts",
        "id": contact["id"],
    }
    names = _query_names()
    assert {"done", "role", "offset", "q"} <= names and "role_changed" in _known_values()
    load_pages()
    for route in web.ROUTES:
        if route.method != "GET":
            continue
        path = route.pattern.pattern.strip("^$")
        for name in route.pattern.groupindex:
            path = re.sub(rf"\(\?P<{name}>[^)]*\)", values[name], path)
        for junk in [*JUNK, *sorted(_known_values())]:
            query = urllib.parse.urlencode({name: junk for name in names})
            page = owner.get(f"{path}?{query}")
            assert page.status != 500 and page.status < 500, (path, junk, page.status)
            assert "<script>x</script>" not in page.html, (path, "unescaped")


def _form_names() -> set[str]:
    found = set()
    for path in PAGES.glob("*.py"):
        found |= set(re.findall(r"""request\.args?\(["'](\w+)["']""", path.read_text()))
    return found - {"csrf"}


@pytest.mark.slow
def test_no_console_form_fails_on_junk(tenant: Tenant) -> None:
    """Every form a signed-in owner can post, with junk in every field any page reads: a page
    with a message (or a redirect), never a 500. Sign-out routes are left for last."""
    owner = owner_of(tenant)
    webhook = tenant.ok("webhooks.create", {"name": "J", "url": "https://example.org/j", "events": ["*"]})
    values = {
        "key": "key_x",
        "webhook": webhook["webhook"]["id"],
        "record": "aud_x",
        "member": "mem_x",
        "tenant": "x",
        "grant": "grt_x",
        "sandbox": "ten_x",
    }
    names = _form_names()
    assert {"email", "role", "scopes", "events", "url", "expiry"} <= names
    load_pages()
    routes = [r for r in web.ROUTES if r.method == "POST" and not r.pattern.pattern.startswith("^/signout")]
    for route in routes:
        path = route.pattern.pattern.strip("^$")
        for name in route.pattern.groupindex:
            path = re.sub(rf"\(\?P<{name}>[^)]*\)", values[name], path)
        for junk in JUNK:
            page = owner.post(path, [(name, junk) for name in sorted(names)] + [("scopes", "admin"), ("events", junk)])
            assert page.status < 500, (path, junk, page.status)
            assert "<script>x</script>" not in page.html, (path, "unescaped")
