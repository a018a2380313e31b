"""The browser test setup itself: Chromium reaches the service, and the accessibility check
passes a clean page and fails one with an image without alt text."""

from __future__ import annotations

import asyncio
import json

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import PageFor, _loop_mark, check_accessibility
from tests.client import Api

CLEAN = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Browser smoke test</title></head>
<body>
  <header><p>Property management</p></header>
  <main>
    <h1>Objects</h1>
    <p>No objects yet. <a href="#new">Create one</a>.</p>
    <form id="new">
      <label for="name">Name</label> <input id="name" name="name" type="text">
      <button type="submit">Create</button>
    </form>
  </main>
</body>
</html>"""

UNLABELLED_IMAGE = CLEAN.replace(
    "<h1>Objects</h1>", '<h1>Objects</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
)


def test_the_browser_reaches_the_service(page: Page, api: Api) -> None:
    page.goto(api.base + "/api/platform/v1/query/version")
    shown = json.loads(page.locator("body").inner_text())
    assert shown["version"]


def test_a_clean_page_passes_the_accessibility_check(page: Page) -> None:
    page.set_content(CLEAN)
    assert check_accessibility(page) == []


def test_an_image_without_alt_text_fails_the_accessibility_check(page: Page) -> None:
    page.set_content(UNLABELLED_IMAGE)
    with pytest.raises(AssertionError, match=r"image-alt \(critical\).*\[1 element\(s\): img\]"):
        check_accessibility(page)
    allowed = check_accessibility(page, allow=["image-alt"])
    assert [violation["id"] for violation in allowed] == ["image-alt"]


@pytest.mark.locale("de-DE")
def test_the_locale_marker_sets_the_browser_language(page: Page, page_for: PageFor) -> None:
    assert page.evaluate("navigator.language") == "de-DE"
    assert page_for().evaluate("navigator.language") == "en-US"


def test_other_tests_can_still_run_their_own_event_loop(page: Page) -> None:
    """Between its calls the sync API leaves its loop marked as running in this thread; the
    conftest takes the mark away after each browser test (_LoopMark), so that asyncio.run() works
    in the tests that follow in this process, and puts it back before the next browser test."""
    page.set_content(CLEAN)
    _loop_mark.park()
    try:
        assert asyncio.run(asyncio.sleep(0, result="ran")) == "ran"
    finally:
        _loop_mark.restore()
    assert page.title() == "Browser smoke test"
