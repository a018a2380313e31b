"""The resource modules: each declares its entity type and operations when imported, and every
module of this package is one (the declaration helpers are chalicelib/declare.py, the shared field
groups chalicelib/field_groups.py). A new resource is a new file here and a line in MODULES
(tests/contract/test_registry.py fails on a file left out).
`load_all()` is how an entry point (the apps, the search index builders, the tests) fills the
registry: the registry itself knows no resource module."""

import importlib

from chalicelib.registry import REGISTRY, Operation

MODULES = (
    "accounting_bankaccounts",
    "accounting_bankaccountuse",
    "accounting_invoices",
    "accounting_mandates",
    "advisors",
    "aliases",
    "apikeys",
    "audit",
    "callrecords",
    "changes",
    "contacts",
    "contracts",
    "document_uploads",
    "documents",
    "objectaddresses",
    "objectgroups",
    "objects",
    "platform",
    "posts",
    "processes",
    "responsibilities",
    "signatories",
    "unitgroups",
    "units",
    "uvi",
    "webhooks",
    "entity_search",  # last: the types it searches are the whole catalogue's
)
# Declared after every other module: the upserts derive from their create and update commands,
# the exports from the upserts.
LATE = ("upserts", "exports")
for _module in MODULES:
    importlib.import_module(f"{__name__}.{_module}")
importlib.import_module(f"{__name__}.upserts").declare_upserts()
importlib.import_module(f"{__name__}.exports")


def load_all() -> dict[str, Operation]:
    """The registry, with every resource module's operations in it (imported above)."""
    return REGISTRY
