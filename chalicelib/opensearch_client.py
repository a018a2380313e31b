"""A client of the stack's OpenSearch domain (or Serverless collection), for the tool search
(search/opensearch_backend.py) and the entity index (entity_search/opensearch_engine.py).
opensearch-py and boto3 are imported inside the function only (cold start): nothing that does not
use OpenSearch loads them."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlparse

from chalicelib import config

if TYPE_CHECKING:
    from opensearchpy import OpenSearch


def client_from_env() -> OpenSearch:
    """A client for PM_OPENSEARCH_ENDPOINT, signing each request with SigV4 (opensearch-py user guide,
    "Authenticating with Amazon OpenSearch Service"). AWSV4SignerAuth is a `requests` auth, hence
    RequestsHttpConnection. PM_OPENSEARCH_SERVICE is "es" for a domain, "aoss" for Serverless."""
    import boto3  # cold start: boto3 loads only for the opensearch backend (module docstring)
    from opensearchpy import (  # cold start: opensearch-py loads only for the opensearch backend
        AWSV4SignerAuth,
        OpenSearch,
        RequestsHttpConnection,
    )

    endpoint = config.opensearch_endpoint()
    url = urlparse(endpoint)
    if url.scheme != "https" or not url.hostname:
        raise ValueError(f"PM_OPENSEARCH_ENDPOINT must be an https URL, not {endpoint!r}")
    credentials = boto3.Session().get_credentials()
    if credentials is None:
        raise RuntimeError("no AWS credentials to sign OpenSearch requests with")
    auth = AWSV4SignerAuth(credentials, config.region(), config.opensearch_service())
    return OpenSearch(
        hosts=[{"host": url.hostname, "port": url.port or 443}],
        http_auth=auth,
        use_ssl=True,
        verify_certs=True,
        connection_class=RequestsHttpConnection,
    )
