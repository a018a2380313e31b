"""The files /docs serves on the local server (chalicelib/local/docs_site.py): a folder answers its
index.html, each file its type, and no path leaves the site's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.local import docs_site


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "reference" / "contacts").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "index.html").write_text("<h1>home</h1>")
    (root / "reference" / "contacts" / "index.html").write_text("<h1>contacts</h1>")
    (root / "assets" / "main.css").write_text("body {}")
    (root / "assets" / "logo.svg").write_text("<svg/>")
    (tmp_path / "secret.txt").write_text("not the site's")
    return root


def test_docs_answers_the_home_page_under_its_slash(site: Path) -> None:
    assert docs_site.answer("GET", "/docs", site)[:2] == (301, {"Location": "/docs/", **_PLAIN})
    status, headers, body = docs_site.answer("GET", "/docs/", site)
    assert (status, headers["Content-Type"], body) == (200, "text/html; charset=utf-8", b"<h1>home</h1>")


def test_a_folder_answers_its_index_page(site: Path) -> None:
    assert docs_site.answer("GET", "/docs/reference/contacts/", site)[2] == b"<h1>contacts</h1>"
    assert docs_site.answer("GET", "/docs/reference/contacts/?q=1", site)[2] == b"<h1>contacts</h1>"
    assert docs_site.answer("GET", "/docs/reference/contacts", site)[1]["Location"] == "/docs/reference/contacts/"


def test_each_file_answers_its_type(site: Path) -> None:
    assert docs_site.answer("GET", "/docs/assets/main.css", site)[1]["Content-Type"] == "text/css; charset=utf-8"
    assert docs_site.answer("GET", "/docs/assets/logo.svg", site)[1]["Content-Type"] == "image/svg+xml; charset=utf-8"


@pytest.mark.parametrize(
    "path",
    [
        "/docs/../secret.txt",
        "/docs/reference/../../secret.txt",
        "/docs/%2e%2e/secret.txt",
        "/docs/%2E%2E%2Fsecret.txt",
        "/docs/..%2fsecret.txt",
        "/docs/..%5csecret.txt",
        "/docs/assets/main.css%00.html",
        "/docs/./index.html",
        "/docs/" + "/".join([".."] * 8) + "/etc/passwd",
    ],
)
def test_no_path_leaves_the_site(site: Path, path: str) -> None:
    assert docs_site.file_for(path, site) is None
    assert docs_site.answer("GET", path, site)[0] == 404


def test_a_link_out_of_the_site_is_not_followed(site: Path) -> None:
    (site / "out.txt").symlink_to(site.parent / "secret.txt")
    assert docs_site.answer("GET", "/docs/out.txt", site)[0] == 404


def test_missing_pages_and_other_methods_are_refused(site: Path) -> None:
    assert docs_site.answer("GET", "/docs/nothing/", site)[0] == 404
    assert docs_site.answer("GET", "/docs/assets/", site)[0] == 404  # a folder without a page
    status, headers, _ = docs_site.answer("POST", "/docs/", site)
    assert (status, headers["Allow"]) == (405, "GET, HEAD")
    assert docs_site.answer("HEAD", "/docs/", site)[:1] == (200,)
    assert docs_site.answer("HEAD", "/docs/", site)[2] == b""


def test_an_unbuilt_site_answers_503(tmp_path: Path) -> None:
    assert docs_site.answer("GET", "/docs/", tmp_path / "none")[0] == 503


def test_only_docs_paths_are_the_sites() -> None:
    assert docs_site.handles("/docs") and docs_site.handles("/docs/x") and docs_site.handles("/docs?x")
    assert not docs_site.handles("/docsx") and not docs_site.handles("/propertymanagement/v2/query/info")


_PLAIN = {"Content-Type": "text/plain; charset=utf-8"}
