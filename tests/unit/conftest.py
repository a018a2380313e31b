"""Unit tests run against moto in-process (no HTTP), on a fresh table per test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture()
def memory_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from moto import mock_aws

    from chalicelib.local import moto_patches
    from chalicelib.store import model

    moto_patches.apply()

    endpoint = os.environ.pop("AWS_ENDPOINT_URL", None)
    for name, value in {
        "AWS_ACCESS_KEY_ID": "unit",
        "AWS_SECRET_ACCESS_KEY": "unit",
        "AWS_REGION": "eu-central-1",
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    }.items():
        monkeypatch.setenv(name, value)
    try:
        with mock_aws():
            model.reset_connection()
            model.create_table()
            yield
    finally:
        model.reset_connection()  # the next user connects to whatever endpoint is configured then
        if endpoint:
            os.environ["AWS_ENDPOINT_URL"] = endpoint
