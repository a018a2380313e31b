"""The docs site at /docs of `make serve`: the static files mkdocs builds into build/site
(mkdocs.yml; `make docs` regenerates the reference and builds it strictly). Only the local server
serves it (http_server.Gateways, before the apps); deployed, the site belongs on a static host.

`make serve` builds the site at start when it is missing or older than its sources (docs/,
mkdocs.yml), in the background (not with PM_DOCS_BUILD=0: the tests' servers): until it is there
/docs answers 503. A path is served only from
inside the site's folder: `..`, encoded or not, and anything resolving outside it answer 404."""

from __future__ import annotations

import fcntl
import mimetypes
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"  # mkdocs.yml's site_dir
SOURCES = (ROOT / "docs", ROOT / "mkdocs.yml")
PREFIX = "/docs"
BUILD_TIMEOUT_SECONDS = 300

Answer = tuple[int, dict[str, str], bytes | None]

# Types the standard table may lack or give differently on some systems.
_TYPES = {
    ".html": "text/html",
    ".css": "text/css",
    ".js": "text/javascript",
    ".json": "application/json",
    ".xml": "application/xml",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".map": "application/json",
    ".gz": "application/gzip",
    ".txt": "text/plain",
}
_TEXT = ("text/", "application/json", "application/xml", "image/svg+xml")


def handles(path: str) -> bool:
    """The request's path (query string included) is the docs site's."""
    bare = path.split("?", 1)[0]
    return bare == PREFIX or bare.startswith(PREFIX + "/")


def content_type(file: Path) -> str:
    kind = _TYPES.get(file.suffix.lower()) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    return f"{kind}; charset=utf-8" if kind.startswith(_TEXT) else kind


def file_for(path: str, site: Path = SITE) -> Path | None:
    """The file of the site a path under /docs names (a folder: its index.html), or None: no such
    file, or a path that leaves the site (`..` segments, encoded slashes or dots, NUL, backslashes)."""
    bare = path.split("?", 1)[0].split("#", 1)[0]
    relative = unquote(bare.removeprefix(PREFIX)).lstrip("/")
    parts = relative.split("/")
    if "\x00" in relative or "\\" in relative or any(part in ("..", ".") for part in parts):
        return None
    root = site.resolve()
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        return None  # a symbolic link out of the site
    if target.is_dir():
        target = target / "index.html"
    return target if target.is_file() else None


def answer(method: str, path: str, site: Path = SITE) -> Answer:
    """The answer of the local server to a request under /docs."""
    if method not in ("GET", "HEAD"):
        return _text(405, "The docs site is read with GET or HEAD.", Allow="GET, HEAD")
    if not (site / "index.html").is_file():
        return _text(503, "The docs site is being built (or cannot be: run `make docs`); reload in a moment.")
    bare = path.split("?", 1)[0]
    file = file_for(path, site)
    if file is None:
        return _text(404, "No page of the docs site is at this address.")
    if file.name == "index.html" and not bare.endswith("/") and not bare.endswith("index.html"):
        # a folder's page without its slash: its relative links would miss, as on any static host
        return 301, {"Location": bare + "/", "Content-Type": "text/plain; charset=utf-8"}, b""
    content = file.read_bytes()
    # the server adds Content-Length (of the body: none to a HEAD)
    headers = {"Content-Type": content_type(file), "Cache-Control": "no-cache"}
    return 200, headers, (b"" if method == "HEAD" else content)


def _text(status: int, message: str, **headers: str) -> Answer:
    body = (message + "\n").encode()
    return status, {"Content-Type": "text/plain; charset=utf-8", **headers}, body


def stale(site: Path = SITE) -> bool:
    """The site is missing, or a source (docs/, mkdocs.yml) changed since it was built."""
    built = site / "index.html"
    if not built.is_file():
        return True
    newest = max(
        (file.stat().st_mtime for source in SOURCES for file in (source.rglob("*") if source.is_dir() else [source])),
        default=0.0,
    )
    return newest > built.stat().st_mtime


def build(site: Path = SITE) -> None:
    """Builds the site with mkdocs into a folder beside it, then puts it in place, one build at a
    time across processes (test workers, a second `make serve`); a process that waited on another's
    build finds the site fresh and builds nothing."""
    site.parent.mkdir(parents=True, exist_ok=True)
    with open(site.parent / ".site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stale(site):
            return
        for leftover in site.parent.glob(".site-*"):  # of a build whose process ended first
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
        fresh = site.with_name(f".site-{id(lock)}-new")
        shutil.rmtree(fresh, ignore_errors=True)
        command = [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(ROOT / "mkdocs.yml"), "-d", str(fresh)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_SECONDS, check=False)
        if done.returncode != 0:
            shutil.rmtree(fresh, ignore_errors=True)
            raise RuntimeError(f"mkdocs build failed:\n{done.stdout}{done.stderr}")
        old = site.with_name(f".site-{id(lock)}-old")
        if site.exists():
            site.rename(old)
        fresh.rename(site)
        shutil.rmtree(old, ignore_errors=True)


def build_in_background(site: Path = SITE) -> threading.Thread | None:
    """`make serve`: builds the site if it is stale, beside the server starting; None when fresh."""
    if not stale(site):
        return None

    def run() -> None:
        try:
            build(site)
            print(f"Docs site built: {site}", flush=True)
        except (RuntimeError, OSError, subprocess.SubprocessError) as error:
            print(f"The docs site was not built ({error}); `make docs` builds it.", flush=True)

    thread = threading.Thread(target=run, name="docs-site-build", daemon=True)
    thread.start()
    return thread
