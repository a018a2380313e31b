"""Browser tests: Playwright's sync API drives Debian's Chromium (`make test` installs it and its
headless shell with apt when either is missing; Playwright's own browser download cannot be fetched here).

Fixtures: `browser` (one Chromium headless shell per test process: Debian's package of the build
Playwright itself runs headless by default, a quarter less CPU than the full browser run headless;
a test marked `full_chromium` gets the full browser instead), `page` (a new context per test,
locale "en-US" unless a `@pytest.mark.locale("de-DE")` marker or an indirect parameter says
otherwise, viewport 1280x900) and `page_for(locale)`, a factory for tests that need more pages or
locales. The service runs at `api.base` (tests/conftest.py). Helpers: `check_accessibility(page)`
(axe-core) and `screenshot(page, name)` (docs/screenshots/, only with PM_SCREENSHOTS=1). A failed
test leaves a screenshot of each of its pages in .venv/browser-failures/.

The sync API runs its asyncio loop in a greenlet of the main thread and leaves that loop marked
as the thread's running loop between calls. For as long as the session's browser lives, any other
test in the same process would then fail in `asyncio.run()` or `loop.run_until_complete()`
("cannot be called from a running event loop"), depending on the order xdist hands out tests.
`_LoopMark` takes the mark away after each browser test and puts it back before the next one.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
SCREENSHOTS = ROOT / "docs" / "screenshots"
FAILURES = ROOT / ".venv" / "browser-failures"
DEFAULT_LOCALE = "en-US"
VIEWPORT = {"width": 1280, "height": 900}
BROWSER_FIXTURES = {"playwright", "browser", "full_browser", "page", "page_for"}

PageFor = Callable[..., Page]
_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", 'locale(tag): the `page` fixture\'s locale, e.g. "de-DE" (default en-US)')
    config.addinivalue_line(
        "markers", "full_chromium: the pages of this test open in the full Chromium, not in its headless shell"
    )


class _LoopMark:
    """The sync API's event loop as the main thread's running loop: parked (unset) outside
    browser tests, restored before a browser test and before the browser closes."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    def park(self) -> None:
        running = asyncio._get_running_loop()
        if running is not None and running is self.loop:
            asyncio._set_running_loop(None)

    def restore(self) -> None:
        if self.loop is not None and not self.loop.is_closed() and asyncio._get_running_loop() is None:
            asyncio._set_running_loop(self.loop)


_loop_mark = _LoopMark()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    # Called for every test of the run (config.hook), not only for those in this folder.
    uses_browser = bool(BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())))
    if uses_browser:
        _loop_mark.restore()
    try:
        return (yield)
    finally:
        if uses_browser:
            _loop_mark.park()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


def _launched(playwright: Playwright, executable: str, package: str) -> Iterator[Browser]:
    """A session's browser: launched headless, closed at the session's end."""
    if not os.access(executable, os.X_OK):
        pytest.fail(f"{executable} is missing: `make test` installs it (apt-get install {package})", pytrace=False)
    browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"], headless=True)
    yield browser
    _loop_mark.restore()
    browser.close()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    manager = sync_playwright().start()
    _loop_mark.loop = asyncio._get_running_loop()
    yield manager
    _loop_mark.restore()  # the session ends in the teardown of whichever test came last
    manager.stop()
    _loop_mark.loop = None


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    yield from _launched(playwright, HEADLESS_SHELL, "chromium-headless-shell")


@pytest.fixture(scope="session")
def full_browser(playwright: Playwright) -> Iterator[Browser]:
    """The full Chromium, headless: in the shell, the OAuth test's consent redirect to the agent
    host's callback (a route of the page) ends on an error page instead of reaching the route."""
    yield from _launched(playwright, CHROMIUM, "chromium")


@pytest.fixture()
def page_for(request: pytest.FixtureRequest) -> Iterator[PageFor]:
    """`page_for(locale="en-US", base_url=None)`: a page in a context of its own."""
    full = request.node.get_closest_marker("full_chromium") is not None
    browser: Browser = request.getfixturevalue("full_browser" if full else "browser")
    pages: list[Page] = []

    def new_page(locale: str = DEFAULT_LOCALE, base_url: str | None = None) -> Page:
        options: dict[str, Any] = {"locale": locale, "viewport": VIEWPORT}
        if base_url is not None:
            options["base_url"] = base_url
        page = browser.new_context(**options).new_page()
        pages.append(page)
        return page

    yield new_page
    if any(report.failed for report in request.node.stash.get(_REPORTS, {}).values()):
        _save_failure_screenshots(request.node, pages)
    for page in pages:
        page.context.close()


@pytest.fixture()
def page(page_for: PageFor, request: pytest.FixtureRequest) -> Page:
    """A page in a new context. Locale: `@pytest.mark.locale("de-DE")`, or indirectly
    `@pytest.mark.parametrize("page", ["de-DE"], indirect=True)`; else en-US."""
    marker = request.node.get_closest_marker("locale")
    locale = getattr(request, "param", None) or (marker.args[0] if marker else DEFAULT_LOCALE)
    return page_for(locale)


def _save_failure_screenshots(item: pytest.Item, pages: list[Page]) -> None:
    FAILURES.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.\[\]-]+", "_", f"{item.path.stem}-{item.name}")
    for number, page in enumerate(pages, start=1):
        target = FAILURES / (f"{name}.png" if number == 1 else f"{name}-{number}.png")
        try:
            page.screenshot(path=str(target), full_page=True)
        except Exception as err:  # noqa: BLE001 - a page that crashed must not hide the test's own failure
            print(f"no failure screenshot for {item.nodeid}: {err}")
        else:
            print(f"failure screenshot: {target}")


def screenshot(page: Page, name: str, *, full_page: bool = True) -> Path | None:
    """Writes docs/screenshots/<name>.png, only when PM_SCREENSHOTS=1 (so that `make test` does
    not rewrite the repository's images on every run)."""
    if os.environ.get("PM_SCREENSHOTS") != "1":
        return None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(target), full_page=full_page)
    return target


def _selector(target: object) -> str:
    # A node in a shadow DOM or an iframe has a list of selectors, outermost first.
    return " >> ".join(map(_selector, target)) if isinstance(target, list) else str(target)


def _describe(violation: dict[str, Any]) -> str:
    nodes = violation.get("nodes", [])
    targets = ", ".join(_selector(node.get("target", [])) for node in nodes)
    return (
        f"  {violation['id']} ({violation.get('impact') or 'no impact'}): {violation.get('help', '')}"
        f" [{len(nodes)} element(s): {targets}] {violation.get('helpUrl', '')}".rstrip()
    )


def check_accessibility(page: Page, allow: Iterable[str] = (), context: str | None = None) -> list[dict[str, Any]]:
    """Runs axe-core (every rule, WCAG and best practice) on the page, or on the elements that the
    CSS selector `context` matches. Fails on any violation whose rule id is not in `allow`, with
    each violation's rule id, impact, help text and target selectors. Returns the allowed
    violations that were found."""
    allowed = set(allow)
    violations: list[dict[str, Any]] = Axe().run(page, context=context).response["violations"]
    failing = [v for v in violations if v["id"] not in allowed]
    if failing:
        lines = [f"{len(failing)} accessibility violation(s) on {page.url}:", *map(_describe, failing)]
        tolerated = [v for v in violations if v["id"] in allowed]
        if tolerated:
            lines += ["allowed by the caller:", *map(_describe, tolerated)]
        raise AssertionError("\n".join(lines))
    return [v for v in violations if v["id"] in allowed]
