"""The MCP function's Chalice application: the one route of the MCP server
(/propertymanagement/v2/mcp), in a Lambda function and bundle of its own, apart from the
REST function (app.py): the search model, numpy and the MCP SDK load here only.

One codebase and one registry with the REST face: the same keys, scopes, dispatch and audit
trail. In the cloud the REST API sends this path to this function (infra/resources.py);
locally `make serve` routes it here (chalicelib/local/http_server.py)."""

from chalice import Chalice  # type: ignore[attr-defined]

from chalicelib import http, observability, resources
from chalicelib.mcp import route as mcp_route

app = Chalice(app_name="propertymanagement-mcp")
app.register_middleware(observability.middleware, "all")
app.register_middleware(http.chalice_refusals_as_problems, "http")

resources.load_all()
mcp_route.register(app)
mcp_route.register_oauth(app)
