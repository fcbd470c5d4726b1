"""Settings: each file's `[tool.dslint]` (the nearest pyproject.toml above it that has the table,
as ruff looks them up; or one `--config` file; or none with `--isolated`), then the command-line
flags as a later layer (ruff's precedence: `--select` re-enables what the file ignores).

Validated strictly: an unknown key, a selector that matches no rule or a broken file is a usage
error in one line that names the file, so a typo never silently turns a rule off.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .model import UsageError
from .pydantic_plugins import plugins_off
from .similarity import edit_distance

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

    # built below, with pydantic's plugin scan off
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, defer_build=True)

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

    def cache_fingerprint(self) -> str:
        """Only what changes a file's own results: every rule runs per file and the selection,
        per-file-ignores and discovery apply afterwards, so they are not part of it."""
        facts = self.model_dump_json(exclude=_SELECTION_AND_DISCOVERY)
        return hashlib.sha256(facts.encode()).hexdigest()[:16]

    def is_enabled(self, code: str) -> bool:
        selected = self.select + self.extend_select
        best_select = max((len(p) for p in selected if p == "ALL" or code.startswith(p)), default=-1)
        best_ignore = max((len(p) for p in self.ignore if p == "ALL" or code.startswith(p)), default=-1)
        return best_select >= 0 and best_select > best_ignore


with plugins_off():  # the validator, built here rather than at the class (defer_build)
    Settings.model_rebuild(force=True)


RULE_KEYS = ("select", "extend-select", "ignore")

_SELECTION_AND_DISCOVERY = {"select", "extend_select", "ignore", "per_file_ignores", "exclude", "extend_exclude",
                            "respect_gitignore"}


def find_pyproject(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml at or above `start` that has a [tool.dslint] table."""
    found = _nearest_table(_folder_of(start), {})
    return found[0] if found else None


def _folder_of(start: Path) -> Path:
    start = Path(os.path.abspath(start))
    return start if start.is_dir() else start.parent


def _nearest_table(folder: Path, cache: dict) -> Optional[tuple[Path, dict]]:
    """(pyproject.toml, its [tool.dslint]) nearest at or above `folder`; `cache` holds one
    answer per folder (a run's files share their folders and parents)."""
    key = str(folder)
    if key not in cache:
        candidate = folder / "pyproject.toml"
        table = _read_table(candidate, required=False) if candidate.is_file() else None
        if table is not None:
            cache[key] = (candidate, table)
        else:
            cache[key] = None if folder.parent == folder else _nearest_table(folder.parent, cache)
    return cache[key]


def _read_table(path: Path, *, required: bool) -> Optional[dict]:
    """[tool.dslint] of a pyproject.toml (the whole file for another name, as ruff.toml);
    None when a pyproject has no such table and it is not `required`. Bad files: UsageError,
    except a pyproject that does not even mention dslint (a template in a walked tree)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        if not required:
            return None
        raise UsageError(f"{path}: cannot read settings: {getattr(error, 'strerror', None) or error}") from None
    ours = required or "dslint" in text
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        if not ours:
            return None
        raise UsageError(f"{path}: invalid TOML: {error}") from None
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        if not ours:
            return None
        raise UsageError(f"{path}: 'tool' must be a table, not {_toml_type(tool)}")
    if "dslint" not in tool:
        return {} if required else None
    table = tool["dslint"]
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [tool.dslint] must be a table, not {_toml_type(table)}")
    return table


def _toml_type(value) -> str:
    return {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array"}.get(
        type(value), type(value).__name__)


def load_settings(start: Path, overrides: dict, *, config: Optional[Path] = None,
                  isolated: bool = False) -> tuple[Settings, Optional[Path]]:
    """Settings for files at `start`: the nearest [tool.dslint] (or `config`; none when
    `isolated`), then command-line `overrides` (keys as in the table; None = not given)."""
    pyproject, table = _source(_folder_of(start), config, isolated, {})
    return _settings_from(table, pyproject, overrides), pyproject


def _source(folder: Path, config: Optional[Path], isolated: bool, cache: dict) -> tuple[Optional[Path], dict]:
    if isolated:
        return None, {}
    if config is not None:
        key = f"\0config\0{config}"  # read once per run, as the discovered files are
        if key not in cache:
            cache[key] = (config, _read_table(config, required=True))
        return cache[key]
    found = _nearest_table(folder, cache)
    return found if found else (None, {})


def _settings_from(table: dict, pyproject: Optional[Path], overrides: dict) -> Settings:
    where = str(pyproject) if pyproject else "command line"
    given = {k: v for k, v in overrides.items() if v is not None}
    check_selectors(table, where if pyproject is not None else None)
    check_selectors(given, None)
    try:
        Settings.model_validate(table)  # report file errors against the file, before overrides
    except ValidationError as error:
        raise UsageError(f"{where}: invalid [tool.dslint]: {_explain(error)}") from None
    check_patterns(table.get("exclude", []) + table.get("extend-exclude", []), where)
    file_rules = {k: table[k] for k in RULE_KEYS if k in table}
    cli_rules = {k: given[k] for k in RULE_KEYS if k in given}
    merged = {**table, **given}
    if file_rules and cli_rules:
        # ruff's precedence: the command line is a later layer than the file, so its
        # --select/--extend-select re-enable what the file ignores. Resolved to the codes.
        merged = {k: v for k, v in merged.items() if k not in RULE_KEYS}
        merged["select"] = enabled_codes([file_rules, cli_rules])
    try:
        return Settings.model_validate(merged)
    except ValidationError as error:
        raise UsageError(f"invalid option: {_explain(error, flags=True)}") from None


class SettingsResolver:
    """The settings of each file: its nearest [tool.dslint] (hierarchical, as ruff), with the
    command-line overrides on top; or one `config` for all, or none when `isolated`."""

    def __init__(self, overrides: dict, *, config: Optional[Path] = None, isolated: bool = False):
        self.overrides = overrides
        self.config = config
        self.isolated = isolated
        self._tables: dict = {}  # folder -> nearest (pyproject, table)
        self._settings: dict = {}  # pyproject -> Settings: one object per settings file

    def for_folder(self, folder: Path) -> Settings:
        pyproject, table = _source(Path(os.path.abspath(folder)), self.config, self.isolated, self._tables)
        key = str(pyproject or "")
        if key not in self._settings:
            self._settings[key] = _settings_from(table, pyproject, self.overrides)
        return self._settings[key]

    def config_of(self, folder: Path) -> Optional[Path]:
        """The settings file that applies in `folder` (None: defaults and flags only)."""
        return _source(Path(os.path.abspath(folder)), self.config, self.isolated, self._tables)[0]


def _best(code: str, selectors: list[str]) -> int:
    return max((len(p) for p in selectors if p == "ALL" or code.startswith(p)), default=-1)


def enabled_codes(layers: list[dict]) -> list[str]:
    """The codes enabled after applying each layer of select/extend-select/ignore in turn:
    a layer's `select` starts afresh, its `extend-select` adds, its `ignore` removes, and
    within a layer the more specific selector wins (ignore on a tie)."""
    from .rules.registry import all_rules

    enabled = []
    for code in sorted(all_rules()):
        on = False
        for layer in layers:
            select = [c.upper() for c in layer.get("select", ["DSL"] if layer is layers[0] else [])]
            extend = [c.upper() for c in layer.get("extend-select", [])]
            ignore = [c.upper() for c in layer.get("ignore", [])]
            chosen, dropped = _best(code, select + extend), _best(code, ignore)
            if "select" in layer or layer is layers[0]:
                on = chosen > dropped
            elif chosen > dropped:
                on = True
            elif dropped >= 0:
                on = False
        if on:
            enabled.append(code)
    return enabled


OPTION_OF = {"select": "--select", "extend-select": "--extend-select", "ignore": "--ignore",
             "per-file-ignores": "--per-file-ignores"}


def check_selectors(values: dict, settings_file: Optional[str]) -> None:
    """Every selector must name at least one rule: a typo must not silently turn rules off."""
    lists = [(key, values.get(key)) for key in RULE_KEYS]
    pfi = values.get("per-file-ignores")
    if isinstance(pfi, dict):
        lists += [("per-file-ignores", codes) for codes in pfi.values()]
    for key, codes in lists:
        if not isinstance(codes, list):
            continue
        for selector in codes:
            if not isinstance(selector, str):
                continue
            problem = selector_problem(selector)
            if problem is not None:
                if settings_file is None:
                    raise UsageError(f"unknown rule selector {selector!r} in {OPTION_OF[key]}; {problem}")
                raise UsageError(f"{settings_file}: unknown rule selector {selector!r} in [tool.dslint] {key}; {problem}")


def selector_problem(selector: str) -> Optional[str]:
    """None for a selector that matches a rule (a code, a prefix such as DSL1, or ALL), else a hint."""
    from .rules.registry import all_rules

    wanted = selector.strip().upper()
    codes = sorted(all_rules())
    if wanted == "ALL" or (wanted.startswith("DSL") and any(c.startswith(wanted) for c in codes)):
        return None
    close = nearest(wanted, codes)
    hint = f"did you mean {', '.join(close)}?" if close else "codes look like DSL101 or a prefix such as DSL1"
    return f"{hint} (`dslint rules` lists them)"


def nearest(wanted: str, codes: list[str], n: int = 2) -> list[str]:
    """The codes (or prefixes of the same length) closest to a mistyped one: within two edits (a
    swap of two neighbours counting as one), the family kept first: DSL160 -> DSL106, DSL101."""
    pool = sorted({c[:len(wanted)] for c in codes}) if 3 < len(wanted) < 6 else codes
    scored = []
    for code in pool:
        distance = edit_distance(wanted, code)
        if distance <= 2:
            prefix = len(os.path.commonprefix([wanted, code]))
            scored.append((-prefix, distance, code))
    return [code for *_, code in sorted(scored)[:n]]


def check_patterns(patterns: list, where: str) -> None:
    """An exclude pattern that gitignore syntax rejects is a settings error, not a crash later."""
    if not patterns or not all(isinstance(p, str) for p in patterns):
        return  # (wrong types are reported by the model)
    from .sources.ignore import IgnoreSpec

    for pattern in patterns:
        try:
            IgnoreSpec([pattern])
        except Exception as error:  # pathspec's GitIgnorePatternError (its name varies by version)
            raise UsageError(f"{where}: invalid exclude pattern {pattern!r}: {error}") from None


def _explain(error: ValidationError, flags: bool = False) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        if flags:
            where = f"--{where.split('.')[0]}"
        if item["type"] == "extra_forbidden":
            known = ", ".join(sorted(f.alias or n for n, f in Settings.model_fields.items()))
            parts.append(f"unknown key '{where}' (known keys: {known})")
        else:
            parts.append(f"'{where}' {_in_words(item)}")
    return "; ".join(parts)


_WORDS = {"list_type": "must be an array", "dict_type": "must be a table", "string_type": "must be a string",
          "bool_type": "must be true or false", "bool_parsing": "must be true or false",
          "int_type": "must be a whole number", "int_parsing": "must be a whole number",
          "int_from_float": "must be a whole number", "float_type": "must be a number",
          "float_parsing": "must be a number"}


def _in_words(item: dict) -> str:
    """A pydantic error as a settings reader says it ("'nodes' must be at least 1")."""
    kind, limits = item["type"], item.get("ctx") or {}
    if kind in _WORDS:
        return f"{_WORDS[kind]}, not {item.get('input')!r}"
    if kind in ("greater_than_equal", "greater_than") and limits:
        bound = limits.get("ge", limits.get("gt"))
        return f"must be {'at least' if kind == 'greater_than_equal' else 'greater than'} {bound}, not {item.get('input')!r}"
    return f"is invalid: {item['msg']}"
