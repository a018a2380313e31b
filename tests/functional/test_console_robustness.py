"""No console page breaks on what a person (or anyone) can put in its address: every GET route,
with every query parameter a page reads (found in the pages' source) set to junk, answers a page,
never a 500. Query values reach notices and texts (`?done=`, `?role=`, `?reason=`): a value the
page does not know must fall back, not fail."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

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


def test_no_console_page_fails_on_junk_in_its_address(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    contact = tenant.contact(lastName="Robust")
    values = {"key": "key_x", "webhook": "whk_x", "record": "aud_x", "plural": "contacts", "id": contact["id"]}
    names = _query_names()
    assert {"done", "role", "reason", "offset", "q"} <= names and "role_changed" in _known_values()
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
