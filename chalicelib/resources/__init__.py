"""Resource modules; importing this package imports every module in it, and each module
registers its entity type and operations on import. A new resource is a new file here.
`load_all()` is how an entry point (the apps, the search index builders, the tests) fills the
registry: the registry itself knows no resource module."""

import importlib
import pkgutil

from chalicelib.registry import REGISTRY, Operation

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")

# The upserts derive from the create and update commands every module above declared.
importlib.import_module(f"{__name__}.upserts").declare_upserts()


def load_all() -> dict[str, Operation]:
    """The registry, with every resource module's operations in it (imported above)."""
    return REGISTRY
