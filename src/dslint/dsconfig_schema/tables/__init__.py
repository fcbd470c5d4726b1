"""DeepSpeed's config keys, types, defaults and allowed values per version, as data.

`sections_X_Y_Z` are generated from DeepSpeed's pydantic models (dev/gen_dsconfig_tables.py);
`toplevel` and `hf_auto` are written by hand from DeepSpeed / transformers / accelerate source.
"""

from importlib import import_module
from types import ModuleType


def sections(version: str) -> ModuleType:
    """The generated table of strict sections for a supported version ("0.19.8")."""
    return import_module(f"{__name__}.sections_{version.replace('.', '_')}")
