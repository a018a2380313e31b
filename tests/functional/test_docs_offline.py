"""The docs site (`make docs`) makes no request to a third party: neither the build (mkdocs and
the Material theme, run with every connection to a host other than this machine refused and
recorded) nor a reader's browser (no page, stylesheet or script of the built site loads anything
from another host: no web fonts, no CDN scripts). A German customer's data-protection officer
asks exactly this of Google Fonts (LG München I, 3 O 17493/20)."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A build of about 10 s: in `make test-long`.
pytestmark = pytest.mark.slow

# Runs mkdocs with socket connections to anything but loopback refused, each attempt printed.
_OFFLINE_BUILD = """
import socket, sys
_connect = socket.socket.connect
def connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if host not in ("127.0.0.1", "::1", "localhost") and not str(host).startswith("/"):
        print(f"THIRD-PARTY CONNECTION: {address!r}", file=sys.stderr, flush=True)
        raise OSError("no connections from the docs build")
    return _connect(self, address)
socket.socket.connect = connect
_getaddrinfo = socket.getaddrinfo
def getaddrinfo(host, *args, **kwargs):
    if host not in (None, "127.0.0.1", "::1", "localhost"):
        print(f"THIRD-PARTY LOOKUP: {host!r}", file=sys.stderr, flush=True)
    return _getaddrinfo(host, *args, **kwargs)
socket.getaddrinfo = getaddrinfo
from mkdocs.__main__ import cli
sys.argv = ["mkdocs", "build", "--strict", "-q", "-f", sys.argv[1], "-d", sys.argv[2]]
cli()
"""

# What a browser fetches by itself: these elements' attributes, and url()/@import in CSS.
_FETCHED = {"script": "src", "img": "src", "iframe": "src", "source": "src", "audio": "src", "video": "src"}
_LINK_FETCHES = {"stylesheet", "preconnect", "preload", "prefetch", "dns-prefetch", "icon", "manifest", "modulepreload"}
_CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])((?:https?:)?//[^'")\s]+)""", re.I)
_ELSEWHERE = re.compile(r"^(?:https?:)?//", re.I)


class _Requests(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag in _FETCHED and _ELSEWHERE.match(values.get(_FETCHED[tag], "")):
            self.found.append(f"<{tag} {_FETCHED[tag]}={values[_FETCHED[tag]]}>")
        if tag == "link" and set(values.get("rel", "").lower().split()) & _LINK_FETCHES:
            if _ELSEWHERE.match(values.get("href", "")):
                self.found.append(f"<link rel={values['rel']} href={values['href']}>")
        style = values.get("style", "")
        self.found += [f"style url {url}" for url in _CSS_URL.findall(style)]


def third_party_requests(site: Path) -> list[str]:
    """Every fetch of another host that a page, stylesheet or script of the site would make."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix == ".html":
            parser = _Requests()
            parser.feed(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(site)}: {request}" for request in parser.found]
            found += [f"{path.relative_to(site)}: {url}" for url in _CSS_URL.findall(_inline_styles(path))]
        elif path.suffix == ".css":
            found += [f"{path.relative_to(site)}: {url}" for url in _CSS_URL.findall(path.read_text(encoding="utf-8"))]
        elif path.suffix == ".js" and re.search(r"fonts\.(?:googleapis|gstatic)\.com", path.read_text("utf-8")):
            found.append(f"{path.relative_to(site)}: loads Google Fonts")
    return found


def _inline_styles(path: Path) -> str:
    return "\n".join(re.findall(r"<style[^>]*>(.*?)</style>", path.read_text(encoding="utf-8"), re.S))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_BUILD, str(ROOT / "mkdocs.yml"), str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "HOME": str(site.parent)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return site, done.stderr


def test_the_build_asks_no_other_host(built: tuple[Path, str]) -> None:
    _, output = built
    assert "THIRD-PARTY" not in output, output


def test_no_page_of_the_site_loads_anything_from_another_host(built: tuple[Path, str]) -> None:
    site, _ = built
    assert (site / "index.html").exists()
    assert third_party_requests(site) == []


def test_the_check_finds_google_fonts_and_a_cdn_script(tmp_path: Path) -> None:
    """The check itself: the page the theme wrote with its default font setting, and a CDN script."""
    (tmp_path / "index.html").write_text(
        '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>'
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto:300,400">'
        '<script src="https://cdn.jsdelivr.net/npm/mermaid/dist/mermaid.min.js"></script>'
        '<a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a>',  # a link is no request
        encoding="utf-8",
    )
    (tmp_path / "extra.css").write_text("@import 'https://fonts.googleapis.com/css2?family=Inter';", encoding="utf-8")
    found = third_party_requests(tmp_path)
    assert len(found) == 4, found


def test_the_reference_tables_keep_operation_names_whole(built: tuple[Path, str]) -> None:
    """The theme breaks inline code anywhere; the site's own stylesheet keeps names in tables whole."""
    site, _ = built
    page = (site / "reference" / "contacts" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../stylesheets/extra.css"' in page
    css = (site / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    rule = css.split(".md-typeset table:not([class]) code", 1)[1].split("}", 1)[0]
    assert "white-space: nowrap" in rule and "word-break: normal" in rule
