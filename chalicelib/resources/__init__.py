"""Resource modules; importing this package imports every module in it, and each module
registers its entity type and operations on import. A new resource is a new file here."""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
