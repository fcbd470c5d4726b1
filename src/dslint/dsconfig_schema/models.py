"""Pydantic models of DeepSpeed's strict config sections, built from the version tables.

DeepSpeed validates these sections with pydantic v2 (`config_utils.py:DeepSpeedConfigModel`:
extra="forbid", lax coercion, populate_by_name); building the same models from our tables
gives the same verdicts ("2" -> 2 for stage, 5e8 -> 500000000, 5.5 -> int_from_float error)
without importing DeepSpeed.
"""

from __future__ import annotations

import ast
import enum
import functools
from pathlib import Path
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..pydantic_plugins import plugins_off
from .tables import sections

_CONFIG = ConfigDict(
    extra="forbid",
    populate_by_name=True,
    use_enum_values=True,
    arbitrary_types_allowed=True,
    protected_namespaces=(),
)

_SIMPLE = {
    "bool": bool,
    "int": int,
    "float": float,
    "str": str,
    "path": Path,
    "any": Any,
    "dict": dict,
    "list": list,
    "none": type(None),
}


class SectionSchema:
    """One strict section of one version: its table entry and the pydantic model built from it."""

    def __init__(self, name: str, table: dict, model: type[BaseModel], children: dict[str, str]):
        self.name = name
        self.fields: dict[str, dict] = table["fields"]
        self.model = model
        self.children = children  # field name -> model name of a nested section

    def key_names(self) -> set[str]:
        """Every spelling DeepSpeed accepts here: field names and their aliases."""
        names = set(self.fields)
        names.update(spec["alias"] for spec in self.fields.values() if "alias" in spec)
        return names

    def field_for(self, key: str) -> str | None:
        """The field a key spells (by name or alias), or None when unknown."""
        if key in self.fields:
            return key
        for name, spec in self.fields.items():
            if spec.get("alias") == key:
                return name
        return None


def _parse_type(expr: str, build) -> Any:
    if expr.startswith("opt:"):
        return Optional[_parse_type(expr[4:], build)]
    if expr.startswith("union:"):
        return Union[tuple(_parse_type(part, build) for part in expr[6:].split("|"))]
    if expr.startswith("enum:"):
        values = ast.literal_eval(expr[5:])
        base = int if all(isinstance(v, int) for v in values) else str
        members = {f"v{i}": v for i, v in enumerate(values)}
        return enum.Enum("SchemaEnum", members, type=base)
    if expr.startswith("literal:"):
        return Literal[tuple(ast.literal_eval(expr[8:]))]
    if expr.startswith("model:"):
        return build(expr[6:])
    return _SIMPLE.get(expr, Any)


def _child_model(expr: str) -> str | None:
    for part in expr.replace("opt:", "").split("|"):
        if part.startswith("model:"):
            return part[6:]
    return None


@functools.lru_cache(maxsize=None)
def schemas(version: str) -> dict[str, SectionSchema]:
    """Model name -> SectionSchema for every strict section model of a supported version."""
    table = sections(version).MODELS
    built: dict[str, SectionSchema] = {}

    def build(name: str) -> type[BaseModel]:
        if name in built:
            return built[name].model
        spec = table[name]
        definitions = {}
        children = {}
        for field, fspec in spec["fields"].items():
            kwargs = {k: fspec[k] for k in ("ge", "gt", "le", "lt") if k in fspec}
            if "alias" in fspec:
                kwargs["alias"] = fspec["alias"]
            child = _child_model(fspec["type"])
            if child:
                children[field] = child
            # Defaults are not validated here (DeepSpeed's are correct by construction).
            definitions[field] = (_parse_type(fspec["type"], build), Field(None, **kwargs))
        model = create_model(name, __config__=_CONFIG, **definitions)
        built[name] = SectionSchema(name, spec, model, children)
        return model

    with plugins_off():
        for name in table:
            build(name)
    return built


def section_models(version: str) -> dict[str, str]:
    """Top-level (or dotted, "timers.throughput") key -> model name of its strict section."""
    return dict(sections(version).SECTIONS)
