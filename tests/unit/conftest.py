"""Unit tests run against moto in-process (no HTTP), on a fresh table per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session", autouse=True)
def _one_botocore_loader() -> Iterator[None]:
    """Every botocore session of the run reads the service models through one loader, which
    keeps what it has read: pynamodb and boto3 start a session per connection, and the fresh
    connection each test's table gets read DynamoDB's model files again (about half of the
    0.2 s a `memory_table` cost). The loader only reads botocore's own data files."""
    import botocore.session
    import pynamodb.connection.base

    loader = botocore.session.get_session().get_component("data_loader")
    plain = botocore.session.get_session

    def get_session(env_vars: Any = None) -> botocore.session.Session:
        session = plain(env_vars)
        session.register_component("data_loader", loader)
        return session

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(botocore.session, "get_session", get_session)
        patch.setattr(pynamodb.connection.base, "get_session", get_session)
        yield


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
