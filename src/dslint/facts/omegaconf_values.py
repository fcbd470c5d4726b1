"""The YAML leaf an OmegaConf/Hydra config read gives (project phase; values.config_object_read finds
the read). Proven values only: anything dslint does not model gives UNKNOWN.

`OmegaConf.load(path)`: the path is relative to the job's working directory (the launch line's
folders), or the script's folder when no launch line starts it; `OmegaConf.load(args.config)` reads the
file the launch line passes with that argparse option, else the option's default. `@hydra.main(config_path, config_name)`:
Hydra resolves config_path against the folder of the file that declares the function, composes
`<config_name>.yaml` with its `defaults:` list; a group entry `- deepspeed: zero3` puts
`<config_path>/deepspeed/zero3.yaml` under the key `deepspeed`. A key that more than one composed file
defines is UNKNOWN (which one wins depends on `_self_`'s place and Hydra's version), and so is any
other defaults entry (packages `@`, `override`, `optional`, nested paths, interpolations), a `# @package`
header, an interpolation `${...}` or a missing value `???` on the way, and any `key=value` launch word
whose key shares a prefix with the key read (a group choice `deepspeed=zero2` picks that option).
The one interpolation resolved is the job's working directory in a Hydra leaf (`${hydra:runtime.cwd}`,
`${oc.env:PWD}`), when the launch line's folder is certain (one folder names its script).

A node turned into a dict (`OmegaConf.to_container(cfg.deepspeed)`, handed to DeepSpeed as its config) is
read the same way, as a mapping with the positions of its keys (`setup_read_node`); an interpolation or a
missing value in it is a value the files do not show.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .values import UNKNOWN, ConfigObjectRead

_SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OPTION = re.compile(r"^[A-Za-z0-9_.-]+$")
# Hydra's own options that change which config is composed.
_CONFIG_OPTIONS = ("--config-path", "-cp", "--config-name", "-cn", "--config-dir", "-cd")
# Interpolations that give the directory the job was started in: Hydra's runtime.cwd (the original
# working directory, hydra.utils.get_original_cwd(), whatever hydra.job.chdir does) and the shell's PWD.
_WORKING_DIRECTORY = ("${hydra:runtime.cwd}", "${oc.env:PWD}")


def config_read_value(project: Any, script_path: str, read: ConfigObjectRead) -> Any:
    """The value every launch of the script reads there, else UNKNOWN."""
    from .link import config_bases, link_setups
    from .program import norm_path

    values = []
    # the launches of every program the module runs in (a module the entry script imports, too)
    entries = {norm_path(p) for p in project.program.programs_of(script_path)} or {norm_path(script_path)}
    setups = [s for s in link_setups(project) if norm_path(s.script_path) in entries]
    for setup in setups or [None]:
        if read.how == "load":
            bases = [b for b, _ in config_bases(project, setup)] if setup is not None else \
                [_script_dir(project, script_path)]
            value = _load_leaf(project, bases, read, _script_args(setup))
        else:
            args = list(setup.command.script_args) if setup is not None and setup.command is not None else []
            value = _hydra_leaf(project, _script_dir(project, script_path), read, args, _job_dir(project, setup))
        if value is UNKNOWN:
            return UNKNOWN
        values.append(value)
    return values[0] if all(v == values[0] for v in values) else UNKNOWN


def setup_read_value(project: Any, setup: Any, read: ConfigObjectRead) -> Any:
    """The value one launch (a linked TrainingSetup) reads there, else UNKNOWN."""
    from .link import config_bases

    if read.how == "load":
        return _load_leaf(project, [b for b, _ in config_bases(project, setup)], read, _script_args(setup))
    args = list(setup.command.script_args) if setup.command is not None else []
    return _hydra_leaf(project, _script_dir(project, setup.script_path), read, args, _job_dir(project, setup))


def _job_dir(project: Any, setup: Any) -> Any:
    """The folder the launch line runs its job in, when only one folder fits; else None."""
    from .link import _job_bases

    if setup is None or setup.launch_path is None or setup.command is None:
        return None
    bases = _job_bases(project, setup.launch_path, setup.command)
    return bases[0][0] if len(bases) == 1 else None


def _script_dir(project: Any, script_path: str) -> Path:
    path = Path(script_path)
    return (path if path.is_absolute() else Path(project.root) / path).parent


def setup_read_node(project: Any, setup: Any, read: ConfigObjectRead) -> Any:
    """The mapping one launch reads at a node (`OmegaConf.to_container(cfg.deepspeed)`) as a config
    document: (its value, the YAML file's path, key path under the node -> Span of the key in that file),
    with interpolations and missing values (`${...}`, `???`) unknown (config_dicts.NotLiteral); UNKNOWN
    when which file holds it, or its keys, are not certain (the leaf reading's caveats)."""
    from .link import display_of, config_bases

    if read.how == "load":
        found = _load_leaf(project, [b for b, _ in config_bases(project, setup)], read, _script_args(setup), node=True)
    else:
        args = list(setup.command.script_args) if setup.command is not None else []
        found = _hydra_leaf(project, _script_dir(project, setup.script_path), read, args, node=True)
    if found is UNKNOWN:
        return UNKNOWN
    value, path, prefix = found
    doc = _yaml_doc(project, path)
    spans = {key[len(prefix):]: span for key, span in (_config_keys(doc) if doc is not None else {}).items()
             if key[:len(prefix)] == prefix and len(key) > len(prefix)}
    return (_unknown_interpolations(value), display_of(project, path), spans) if spans else UNKNOWN


def _config_keys(doc: Any) -> dict:
    from ..sources.yaml_configs import config_keys

    return config_keys(doc)


def _unknown_interpolations(value: Any) -> Any:
    from .config_dicts import NotLiteral

    if isinstance(value, dict):
        return {k: _unknown_interpolations(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unknown_interpolations(v) for v in value]
    if isinstance(value, str) and ("${" in value or value == "???"):
        return NotLiteral(value if len(value) <= 40 else value[:39] + "…")
    return value


def _node(content: Any, keys: tuple) -> Any:
    """The mapping at `keys` (string keys only), else UNKNOWN."""
    value = content
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return UNKNOWN
        value = value[key]
    return value if isinstance(value, dict) and value and all(isinstance(k, str) for k in value) else UNKNOWN


def _yaml_doc(project: Any, path: Path) -> Any:
    """The YamlDoc of a file (memoised per project), None when missing or unreadable."""
    from ..sources import yaml_configs

    project.note_input(str(path))
    memo = project.__dict__.get("_omegaconf_docs")
    if memo is None:
        memo = project._omegaconf_docs = {}  # type: ignore[attr-defined]
    key = str(path)
    if key not in memo:
        memo[key] = yaml_configs.read_yaml(key, key) if path.is_file() else None
    return memo[key]


def _yaml(project: Any, path: Path) -> Any:
    """The parsed mapping of a YAML file (memoised per project), UNKNOWN when missing or unreadable."""
    doc = _yaml_doc(project, path)
    ok = doc is not None and doc.error is None and isinstance(doc.value, dict) and "@package" not in (doc.text or "")
    return doc.value if ok else UNKNOWN


def _script_args(setup: Any) -> Any:
    """The launch line's script arguments (ShellArgs), None without a launch line."""
    return list(setup.command.script_args) if setup is not None and setup.command is not None else None


def _load_path(read: ConfigObjectRead, args: Any) -> Any:
    """The path `OmegaConf.load` gets: as written, or `OmegaConf.load(args.config)`'s option value on the
    launch line, else its default; None when no launch line shows it or a word may pass it."""
    if not read.options:
        return read.path
    if args is None:
        return None
    from .values import option_on_command_line

    given, value = option_on_command_line(args, read.options)
    if given is None:
        return None
    return value if given else read.path or None


def _load_leaf(project: Any, bases: list, read: ConfigObjectRead, args: Any = None, node: bool = False) -> Any:
    written = _load_path(read, args)
    if not written:
        return UNKNOWN
    found = {}
    for base in bases:
        path = Path(written) if os.path.isabs(written) else base / written
        project.note_input(str(path))
        if path.is_file():
            found.setdefault(path.resolve(), path)
    if len(found) != 1:
        return UNKNOWN
    path = next(iter(found.values()))
    if node:
        value = _node(_yaml(project, path), read.keys)
        return UNKNOWN if value is UNKNOWN else (value, path, read.keys)
    return _leaf(_yaml(project, path), read.keys)


def _hydra_leaf(project: Any, script_dir: Path, read: ConfigObjectRead, args: list, cwd: Any = None,
                node: bool = False) -> Any:
    if os.path.isabs(read.path):
        return UNKNOWN
    folder = script_dir / read.path
    name = read.name if read.name.endswith(".yaml") else f"{read.name}.yaml"
    primary = _yaml(project, folder / name)
    if primary is UNKNOWN:
        return UNKNOWN
    choices: dict = {}
    defaults = primary.get("defaults", [])
    if not isinstance(defaults, list):
        return UNKNOWN
    for entry in defaults:
        if entry == "_self_":
            continue
        if not (isinstance(entry, dict) and len(entry) == 1):
            return UNKNOWN
        (group, option), = entry.items()
        if not (isinstance(group, str) and _SIMPLE.match(group) and isinstance(option, str) and _OPTION.match(option)):
            return UNKNOWN
        choices[group] = option
    for arg in args:
        text = arg.value
        if text is None:
            return UNKNOWN  # a word dslint cannot read may be any override
        if text.split("=", 1)[0] in _CONFIG_OPTIONS:
            return UNKNOWN
        key, eq, value = text.partition("=")
        if not eq or key.startswith("-"):
            continue
        if key in choices and _OPTION.match(value):
            choices[key] = value  # a group choice on the command line
            continue
        parts = tuple(key.lstrip("+~").split("."))
        if parts[:len(read.keys)] == read.keys[:len(parts)]:
            return UNKNOWN
    sources = [({k: v for k, v in primary.items() if k != "defaults"}, (), folder / name)]
    for group, option in choices.items():
        content = _yaml(project, folder / group / f"{option}.yaml")
        if content is UNKNOWN or "defaults" in content:
            if read.keys[0] == group:
                return UNKNOWN
            continue
        sources.append((content, (group,), folder / group / f"{option}.yaml"))
    found = []
    for content, package, path in sources:
        if read.keys[:len(package)] != package:
            continue
        rest = read.keys[len(package):]
        if node and (not rest or rest[0] in content):  # (a group option's file is the node itself)
            value = _node(content, rest)
            found.append(UNKNOWN if value is UNKNOWN else (value, path, rest))
        elif rest and rest[0] in content:
            found.append(_leaf(content, rest, cwd))
        elif not rest:
            return UNKNOWN
    return found[0] if len(found) == 1 else UNKNOWN


def _leaf(content: Any, keys: tuple, cwd: Any = None) -> Any:
    value = content
    for k, key in enumerate(keys):
        if not isinstance(value, dict) or key not in value:
            return UNKNOWN
        value = value[key]
        if isinstance(value, str) and cwd is not None and k == len(keys) - 1:
            for spelling in _WORKING_DIRECTORY:
                value = value.replace(spelling, str(cwd))
        if isinstance(value, str) and ("${" in value or value == "???"):
            return UNKNOWN
    if isinstance(value, (dict, list)):
        return UNKNOWN
    return value
