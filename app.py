"""The Chalice application: one route per registered operation, plus catch-alls that
answer unknown names with problem+json. Everything else lives in chalicelib/."""

from chalice import Chalice  # type: ignore[attr-defined]

from chalicelib import http, registry

app = Chalice(app_name="propertymanagement")
app.api.binary_types = ["multipart/form-data", "application/octet-stream"]

registry.load_all()
http.register_routes(app)
