"""Rule families. Importing a family module registers its rules (and fixers)."""
from __future__ import annotations

import importlib
import pkgutil

from ..model import Applicability, Severity
from .registry import declare

declare("DSL001", "syntax-error")
declare("DSL002", "unreadable-file")
declare("DSL003", "internal-error")
declare("DSL004", "unused-noqa", severity=Severity.WARNING, fix=Applicability.SAFE)

_LOADED = False


def load_all() -> None:
    """Import every module in this package once (plugins register on import)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name not in ("registry", "context") and not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


__all__ = ["load_all", "Severity"]
