"""Phone widths (issue 37): at 390x844 no console page scrolls sideways; a wide table scrolls
inside its own box (console.css, "phone widths"). The sweep reads the GET routes from the route
table as the axe sweep does (test_console_accessibility.py, whose world of ids it shares), so a
page added later is measured without touching this test."""

from __future__ import annotations

from tests.browser.conftest import PageFor
from tests.browser.test_console_accessibility import _world, page_paths
from tests.client import Api

PHONE = {"width": 390, "height": 844}
# The elements past the viewport's right edge that no scrolling box holds (for the failure's
# message; an absolutely positioned one escapes a box that is not its containing block).
CULPRITS = """() => [...document.querySelectorAll("body *")].filter((el) => {
  if (el.getBoundingClientRect().right <= innerWidth + 1) return false;
  const free = getComputedStyle(el).position === "absolute";
  for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
    if (getComputedStyle(up).overflowX !== "visible" && !free) return false;
  }
  return true;
}).slice(0, 4).map((el) => el.tagName.toLowerCase() + (el.className ? "." + el.className : ""))"""


def test_no_console_page_scrolls_sideways_at_phone_width(page_for: PageFor, api: Api) -> None:
    page = page_for("de-DE")
    page.set_viewport_size(PHONE)
    values = _world(api, page)
    too_wide = []
    for path in page_paths(values):
        for lang in ("de", "en"):
            page.goto(api.base + "/console" + path + (values.get(f"query:{path}") or "?").rstrip("&") + f"&lang={lang}")
            width = page.evaluate("document.scrollingElement.scrollWidth")
            if width > PHONE["width"]:
                too_wide.append(f"{path} ({lang}): {width}px, {page.evaluate(CULPRITS)}")
    page.goto(api.base + "/console/nowhere")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    assert not too_wide, "pages wider than the phone:\n" + "\n".join(too_wide)
