"""`make serve` answers the docs site at /docs (chalicelib/local/docs_site.py), over the wire: the
home page, a reference page by its folder, the theme's files with their types, and nothing
outside the site. The site is built first when missing or older than docs/ and mkdocs.yml (once
for every run after: a build takes about 8 s of CPU)."""

from __future__ import annotations

import pytest

from chalicelib.local import docs_site
from tests.client import Api
from tests.functional.test_local_server import over_socket, port_of

# Builds the docs site (mkdocs) in each worker that runs it, 10 s: in `make test-long`.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(http_api: Api) -> Api:
    docs_site.build()
    return http_api


def test_docs_answers_the_site(site: Api) -> None:
    host = f"127.0.0.1:{port_of(site)}"
    moved = over_socket(site, "GET", "/docs", host)
    assert (moved.status, moved.headers["location"]) == (301, "/docs/")
    home = over_socket(site, "GET", "/docs/", host)
    assert home.status == 200
    assert home.headers["content-type"] == "text/html; charset=utf-8"
    assert b"Property Management Service" in home.raw and b"reference/" in home.raw


def test_a_reference_page_answers_by_its_folder(site: Api) -> None:
    page = site.request("GET", "/docs/reference/contacts/")
    assert page.status == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert b'id="contacts.show"' in page.raw


def test_the_theme_files_answer_their_types(site: Api) -> None:
    home = site.request("GET", "/docs/").raw.decode()
    links = [part.split('"', 1)[0] for part in home.split('href="')[1:]]
    stylesheet = next(link for link in links if link.endswith(".css"))
    css = site.request("GET", "/docs/" + stylesheet)
    assert (css.status, css.headers["content-type"]) == (200, "text/css; charset=utf-8")
    index = site.request("GET", "/docs/search/search_index.json")
    assert (index.status, index.headers["content-type"]) == (200, "application/json; charset=utf-8")


def test_no_path_leads_out_of_the_site(site: Api) -> None:
    host = f"127.0.0.1:{port_of(site)}"
    for path in ("/docs/../mkdocs.yml", "/docs/%2e%2e/%2e%2e/app.py", "/docs/..%2f..%2fapp.py"):
        reply = over_socket(site, "GET", path, host)
        assert reply.status == 404, path
        assert b"site_name" not in reply.raw and b"Chalice" not in reply.raw
