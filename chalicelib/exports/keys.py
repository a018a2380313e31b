"""Where an export's files live in the upload bucket (a module of its own: the API names them for
the download links without loading the worker's code)."""

from __future__ import annotations

from chalicelib.uploads.files import EXPORT_PREFIX as EXPORT_PREFIX  # expired by the bucket's lifecycle

ENTITIES_FILE = "entities.ndjson.gz"  # the lines
FILES_FILE = "files.zip"  # the documents' files


def export_key(tenant_id: str, export_id: str, name: str) -> str:
    """exports/<tenant>/<export>/<name>."""
    return f"{EXPORT_PREFIX}{tenant_id}/{export_id}/{name}"
