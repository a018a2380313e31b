"""Resource modules; importing this package registers every operation."""

from chalicelib.resources import aliases, apikeys, contacts, objects, platform  # noqa: F401
