"""Settings: `[tool.dslint]` in the nearest pyproject.toml that has it, then command-line flags.

Validated strictly: an unknown key is a usage error that names the file, so a typo in the
settings never silently turns a rule off.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .model import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_EXCLUDE = [
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
    "build", "dist", ".eggs", "*.egg-info", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".dslint_cache", "site-packages",
]


class Settings(BaseModel):
    """Everything that changes what a check reports. Hashed into the cache key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    select: list[str] = Field(default_factory=lambda: ["DSL"])
    extend_select: list[str] = Field(default_factory=list, alias="extend-select")
    ignore: list[str] = Field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = Field(default_factory=dict, alias="per-file-ignores")
    exclude: list[str] = Field(default_factory=list)
    extend_exclude: list[str] = Field(default_factory=list, alias="extend-exclude")
    respect_gitignore: bool = Field(True, alias="respect-gitignore")
    max_file_size_mb: float = Field(10.0, alias="max-file-size-mb", gt=0)
    # Facts the files cannot show. None = unknown; rules then say less or ask for them.
    nproc_per_node: Optional[int] = Field(None, alias="nproc-per-node", ge=1)
    nodes: Optional[int] = Field(None, ge=1)
    cpu_cores: Optional[int] = Field(None, alias="cpu-cores", ge=1)
    host_memory_gb: Optional[float] = Field(None, alias="host-memory-gb", gt=0)
    deepspeed_version: Optional[str] = Field(None, alias="deepspeed-version")

    @field_validator("select", "extend_select", "ignore")
    @classmethod
    def _codes(cls, codes: list[str]) -> list[str]:
        for code in codes:
            if not code.upper().startswith("DSL") and code.upper() != "ALL":
                raise ValueError(f"{code!r} is not a dslint code or prefix (codes look like DSL101 or DSL1)")
        return [c.upper() for c in codes]

    def fingerprint(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]

    def is_enabled(self, code: str) -> bool:
        selected = self.select + self.extend_select
        best_select = max((len(p) for p in selected if p == "ALL" or code.startswith(p)), default=-1)
        best_ignore = max((len(p) for p in self.ignore if p == "ALL" or code.startswith(p)), default=-1)
        return best_select >= 0 and best_select > best_ignore


def find_pyproject(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml at or above `start` that has a [tool.dslint] table."""
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else [*start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
                raise UsageError(f"{candidate}: cannot read settings: {error}") from None
            if "dslint" in data.get("tool", {}):
                return candidate
    return None


def load_settings(start: Path, overrides: dict) -> tuple[Settings, Optional[Path]]:
    """Read [tool.dslint] (if any) and apply command-line overrides (keys as in the table)."""
    table: dict = {}
    pyproject = find_pyproject(start)
    if pyproject is not None:
        table = dict(tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["dslint"])
    where = str(pyproject) if pyproject else "command line"
    try:
        Settings.model_validate(table)  # report file errors against the file, before overrides
    except ValidationError as error:
        raise UsageError(f"{where}: invalid [tool.dslint]: {_explain(error)}") from None
    merged = {**table, **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return Settings.model_validate(merged), pyproject
    except ValidationError as error:
        raise UsageError(f"invalid option: {_explain(error)}") from None


def _explain(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        if item["type"] == "extra_forbidden":
            known = ", ".join(sorted(f.alias or n for n, f in Settings.model_fields.items()))
            parts.append(f"unknown key '{where}' (known keys: {known})")
        else:
            parts.append(f"'{where}': {item['msg']}")
    return "; ".join(parts)
