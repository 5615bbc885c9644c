"""The ATen library's trace-only functions (oxs/torch/_trace_only.py): plain
Python, run by the exporter at export time over graph values; installed as
the package oxs.torch.traced, so importing it compiles nothing. Importing
this package imports (and so registers) every module in it."""

import importlib as _importlib
import pkgutil as _pkgutil

MODULES = sorted(m.name for m in _pkgutil.iter_modules(__path__) if not m.name.startswith("_"))

for _name in MODULES:
    _importlib.import_module(f"{__name__}.{_name}")
