"""Resource modules; importing this package imports every module in it, and each module
registers its entity type and operations on import. A new resource is a new file here.
`load_all()` is how an entry point (the apps, the search index builders, the tests) fills the
registry: the registry itself knows no resource module."""

import importlib
import pkgutil

from chalicelib.registry import REGISTRY, Operation

# Declared after every other module: the upserts derive from their create and update commands,
# the exports from the upserts.
_LATE = ("upserts", "exports")
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in _LATE:
        importlib.import_module(f"{__name__}.{_module}")
importlib.import_module(f"{__name__}.upserts").declare_upserts()
importlib.import_module(f"{__name__}.exports")


def load_all() -> dict[str, Operation]:
    """The registry, with every resource module's operations in it (imported above)."""
    return REGISTRY
