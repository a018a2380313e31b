"""Every page of the console passes axe-core (issue 19), in German: the sweep reads the GET
routes from the console's route table and fills their path segments with the tenant's own ids,
so a page added later is checked without touching this test (a new kind of segment fails here
until it is given a value). The areas' own browser tests check their pages in English too."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page

from chalicelib.console import web
from chalicelib.console.app import load_pages
from tests.browser.conftest import PageFor, check_accessibility
from tests.browser.console import signed_in_owner
from tests.client import Api
from tests.eventually import eventually


def _world(api: Api, page: Page) -> dict[str, str]:
    tenant = signed_in_owner(page, api, company="Barrierefrei GmbH")
    contact = tenant.contact(lastName="Zugänglich")
    agent = tenant.new_key(["read", "write"], agent=f"sweep-{uuid.uuid4().hex[:6]}")
    tenant.ok("contacts.update", {"contact": {"id": contact["id"], "firstName": "Anna"}}, key=agent)
    hook = tenant.ok(
        "webhooks.create", {"name": "Sweep", "url": "https://example.org/h", "events": ["contact.created"]}
    )
    keys = tenant.get("apikeys.list", {"limit": 10, "offset": 0})["apiKeys"]
    records = eventually(
        lambda: tenant.get("audit.list", {"entityId": contact["id"], "limit": 10, "offset": 0})["auditRecords"][1:]
    )
    return {
        "key": keys[0]["id"],
        "member": keys[0]["id"],  # the keys a creator made: the sign-up's key made the sweep's agent key
        "webhook": hook["webhook"]["id"],
        "record": records[0]["id"],
        "plural": "contacts",
        "id": contact["id"],
        "query:/activity/revert": f"?entityId={contact['id']}",
    }


def page_paths(values: dict[str, str]) -> list[str]:
    """Every GET route of the console's route table, its path segments filled from `values`."""
    load_pages()
    paths = []
    for route in web.ROUTES:
        if route.method != "GET":
            continue
        path = route.pattern.pattern.strip("^$")
        for name in route.pattern.groupindex:
            assert name in values, f"give the sweep a value for the path segment {{{name}}} ({path})"
            path = re.sub(rf"\(\?P<{name}>[^)]*\)", values[name], path)
        paths.append(path)
    return paths


@pytest.mark.slow
def test_every_console_page_passes_axe(page_for: PageFor, api: Api) -> None:
    page = page_for("de-DE")
    values = _world(api, page)
    checked = []
    for path in page_paths(values):
        page.goto(api.base + "/console" + path + values.get(f"query:{path}", ""))
        assert page.locator("html").get_attribute("lang") == "de", path
        check_accessibility(page)
        checked.append(path)
    page.goto(api.base + "/console/nowhere")  # the error page
    check_accessibility(page)
    assert len(checked) >= 15, checked
