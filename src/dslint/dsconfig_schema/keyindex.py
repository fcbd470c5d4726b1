"""Where each key is valid in one version's config: used to say "this key belongs elsewhere"."""

from __future__ import annotations

import functools

from .models import schemas, section_models
from .tables import toplevel

@functools.lru_cache(maxsize=None)
def top_level_keys(version: str) -> frozenset[str]:
    """Every top-level key DeepSpeed `version` reads (scalars and sections, removed ones excluded)."""
    keys = set(toplevel.scalars(version)) | set(toplevel.loose_sections(version))
    keys |= {name.split(".")[0] for name in section_models(version)}
    return frozenset(keys)


@functools.lru_cache(maxsize=None)
def locations(version: str) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Key name -> every path (from the root) where `version` accepts that key."""
    found: dict[str, set[tuple[str, ...]]] = {}

    def add(path: tuple[str, ...]) -> None:
        found.setdefault(path[-1], set()).add(path)

    for key in top_level_keys(version):
        add((key,))
    all_schemas = schemas(version)

    def walk(model_name: str, prefix: tuple[str, ...], depth: int) -> None:
        schema = all_schemas[model_name]
        for name in schema.key_names():
            add(prefix + (name,))
        for field, child in schema.children.items():
            if depth < 3:
                walk(child, prefix + (field,), depth + 1)

    for section, model_name in section_models(version).items():
        if section == "bfloat16":
            continue
        walk(model_name, tuple(section.split(".")), 0)
    for section, keys in toplevel.loose_sections(version).items():
        for key in keys or ():
            add((section, key))
    return {k: tuple(sorted(v)) for k, v in found.items()}
