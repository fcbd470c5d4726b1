"""Linking launch line → script → DeepSpeed config into `TrainingSetup`s.

A DeepSpeed config is only right or wrong for a given launch: the batch arithmetic needs the
world size, CPU Adam needs its share of cores, and both depend on the launcher. This module
puts the three files together the way the job will run them:

- each launch command that starts a script of the project is one setup; a script no launch
  file starts is a setup of its own (its launcher unknown);
- a launch names its script and configs by path, from the folder the job runs in: its `cd DIR`, else
  its own folder or one above it up to the project root (`resolve_path`); a path found nowhere, or as
  different files from several of them, stays unknown with the reason (`PathLink.why`, shown by
  --show-setup), never a same-named file elsewhere; one index per table keeps this linear;
- the config comes from what the script reads (`deepspeed.initialize(config=...)`, an argparse
  option such as `--deepspeed_config` / `--config` given on the launch line or its default,
  `TrainingArguments(deepspeed=...)`, `DeepSpeedStrategy(config=...)`,
  `PL_DEEPSPEED_CONFIG_PATH`, `accelerate launch --deepspeed_config_file`), or from a Lightning
  strategy string (the config Lightning builds, see lightning_strategies.py);
- nodes, processes per node and world size come from the launcher, else from the Lightning
  Trainer/Fabric or `mp.spawn` when the script spawns, else from `[tool.dslint]` settings.

Unknown stays unknown (None), with the reason in `notes`.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..model import Span
from ..sources.launch import launchers as launcher_table
from . import lightning_strategies as pl_table
from .option_defaults import launched_int, option_passed
from .optimizer_builders import PARTIAL_NAME, imported_builder
from . import script_setup  # noqa: F401  (registers the "setup" summary extractor)
from .script_setup import (ClientOptimizer, ConfigRef, LightningSite, ScriptSetupFacts, resolved_lightning_site,
                           resolved_plugin_ref)
from .summary import ScriptSummary, summary_extractor

if TYPE_CHECKING:
    from ..settings import Settings
    from ..sources import yaml_configs
    from .setup import Project

HF_CONSUMERS = ("hf", "accelerate")


@dataclass
class ConfigLink:
    """Which config a setup uses and how dslint knows."""

    path: Optional[str] = None  # display path of a project config file
    value: Any = None  # the parsed config (file) or the dict Lightning builds
    how: str = ""  # "deepspeed.initialize(config=...) in train.py: 'ds.json'"
    consumer: str = "deepspeed"  # deepspeed | hf | accelerate | lightning | fabric
    ref_span: Optional[Span] = None  # where the script names it
    ref_path: Optional[str] = None  # the script path holding ref_span
    launch_span: Optional[Span] = None  # where the launch line names it
    from_strategy: Optional[str] = None  # a Lightning strategy string / object that built it
    # A dict written in Python (in the script, or returned by a project function): where each key is
    # written, key path -> span of `"key": value`, in the file `key_path`.
    key_spans: dict = field(default_factory=dict)
    key_path: Optional[str] = None
    # The config accelerate builds from DeepSpeedPlugin(...) in the script: field -> span of `field=value`.
    plugin_spans: Optional[dict] = None
    # A config built in program order (files, constants, literal keys): config_overlays.OverlayDoc, whose
    # nodes know the file each value is written in.
    overlay: Any = None


@dataclass
class TrainingSetup:
    script_path: str
    summary: ScriptSummary
    facts: ScriptSetupFacts
    launch_path: Optional[str] = None
    command: Any = None  # sources.launch.LaunchCommand
    launcher: str = "unknown"  # kind of the outermost launcher, "python", or "unknown"
    spawner_kind: Optional[str] = None  # the launcher that starts the ranks (torchrun, deepspeed ...)
    nodes: Optional[int] = None
    procs_per_node: Optional[int] = None
    world_size: Optional[int] = None
    spawner: str = "unknown"  # launcher | framework | both | none | unknown
    threads_per_rank: Optional[str] = None  # "1", "16", "all cores", "cores // N" ...
    threads_source: str = ""
    core_binding: bool = False
    config: ConfigLink = field(default_factory=ConfigLink)
    lightning: Optional[LightningSite] = None
    accelerate: Optional[yaml_configs.AccelerateLaunch] = None  # what `accelerate launch` does (flags + --config_file)
    lightning_cli: Optional["LightningCliConfig"] = None  # the Trainer arguments a LightningCLI reads (--config)
    notes: dict = field(default_factory=dict)  # fact -> why it is unknown / where it came from
    # srun in the chain: its tasks per node; as the spawner (no torch launcher after it) also what its tasks
    # lack and whether they see the same GPUs (see _slurm_tasks); () / None elsewhere or when not told.
    rank_env_missing: tuple = ()  # torch's rank variables that no launcher sets and the launch env does not give
    slurm_tasks_per_node: Optional[int] = None
    # Some node runs at least this many of srun's tasks: the tasks per node when given, else ceil(ntasks /
    # nodes) (`--ntasks=8 --nodes=2`: Slurm's block distribution fills nodes by their CPUs, 7+1 as well as
    # 4+4, srun(1) --distribution; only the pigeonhole bound is sure).
    slurm_tasks_on_a_node: Optional[int] = None
    slurm_tasks_share_gpus: Optional[bool] = None
    # (display path, EnvDeviceIndex): the script's own and those of the project functions it calls
    # (`init_distributed()` in distributed.py reading LOCAL_RANK), see _env_device_indexes.
    env_device_indexes: list = field(default_factory=list)
    # id(ClientOptimizer with a builder) -> the optimizer the builder's module constructs
    resolved: dict = field(default_factory=dict)
    # The mp.spawn of a project function of another module that the script calls (`launch(train, 4)`):
    # HelperSpawn, ...; the script's own are `facts.spawns`.
    helper_spawns: list = field(default_factory=list)
    # (Span of the call in the script, the name called) of the factory that returned `lightning`, if any
    lightning_from: Optional[tuple] = None

    # -- derived views used by rules and by --show-setup ---------------------------------
    @property
    def frameworks(self) -> list[str]:
        names = []
        if self.facts.hf_trainer:
            names.append("HF Trainer")
        if self.facts.accelerate:
            names.append("Accelerate")
        sites = self.facts.lightning or ([self.lightning] if self.lightning is not None and self.lightning.path else [])
        if any(s.kind == "trainer" for s in sites):
            names.append("Lightning Trainer" + (f" (from {self.lightning.path})" if not self.facts.lightning else ""))
        if any(s.kind == "fabric" for s in sites):
            names.append("Lightning Fabric" + (f" (from {self.lightning.path})" if not self.facts.lightning else ""))
        if self.facts.deepspeed_inits:
            names.append("deepspeed.initialize")
        if self.lightning_cli is not None:
            names.append(f"LightningCLI ({', '.join(self.lightning_cli.trainer.files)})")
        return names

    @property
    def config_value(self) -> Optional[dict]:
        return self.config.value if isinstance(self.config.value, dict) else None

    def launch_related(self, note: str) -> list:
        """(path, span, note) for the launch line, to put in a finding's `related`."""
        if self.command is None or self.launch_path is None:
            return []
        return [(self.launch_path, self.command.span, note)]

    def lightning_related(self) -> list:
        """(path, span, note) for the script's call of the factory its Trainer comes from, if any."""
        if self.lightning_from is None:
            return []
        span, local = self.lightning_from
        return [(self.script_path, span, f"the Trainer comes from {local}()")]

    @property
    def client_optimizer(self) -> Optional[ClientOptimizer]:
        for init in self.facts.deepspeed_inits:
            if init.optimizer is not None:
                return self.resolved.get(id(init.optimizer), init.optimizer) if init.optimizer.qualname \
                    else self.resolved.get(id(init.optimizer))
        if self.lightning is not None and self.facts.lightning_optimizers:
            return self.facts.lightning_optimizers[0]
        return None

    def offload_devices(self, settings=None) -> tuple[str, str]:
        """(optimizer, param) offload devices of the linked config as DeepSpeed reads it, legacy
        `cpu_offload` included ("none" when not offloading, or when the files cannot show it)."""
        from ..dsconfig_schema.effective import effective_for

        config = effective_for(self.config_value, settings)
        if config is None or config.zero_stage not in (1, 2, 3):
            return "none", "none"  # no ZeRO (or "auto"): nothing is offloaded that the files can show
        return tuple((block.device if block is not None else "none")
                     for block in (config.offload_optimizer, config.offload_param))


# -- paths -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class HelperSpawn:
    """An mp.spawn/start_processes in a project function of another module that the script calls."""

    span: Span  # the call of the helper in the script
    what: str
    nprocs: Optional[int]
    conditional: bool  # the call, or the spawn inside the helper, may not run
    local: str  # the helper as the script calls it (`launch`, `utils.launch`)
    helper_path: str
    helper_span: Span  # the spawn inside the helper


def _offered(project: "Project", fact: str) -> frozenset:
    """The names of the project functions (and classes, by their `__init__`) that state `fact` (`spawns`,
    `returns_trainer`): found once per project, so that a setup looks up only the calls that may be one."""
    memo = project.__dict__.setdefault("_offered", {})
    if fact not in memo:
        memo[fact] = frozenset(
            [name for m in project.program.modules.values() for name, f in m.functions.items()
             if getattr(f, fact) is not None] +
            [name for m in project.program.modules.values() for name, c in m.classes.items()
             if getattr(c.methods.get("__init__"), fact, None) is not None])
    return memo[fact]


def _may_offer(exports, local: str, offered: frozenset) -> bool:
    """The called `local` may name one of the `offered` functions (through `from m import f as g`, too)."""
    last = local.rsplit(".", 1)[-1]
    return last in offered or (last == local and any(
        bound == local and name in offered for ref in exports.imports for name, bound in ref.names))


def _helper_spawns(project: "Project", setup: TrainingSetup) -> None:
    from .program import norm_path

    offered = _offered(project, "spawns")
    if not offered:
        return
    program = project.program
    exports = program.modules.get(norm_path(setup.script_path))
    for local in exports.called if exports is not None else ():
        found = program.function_called(setup.script_path, local) if _may_offer(exports, local, offered) else None
        if found is None or found[1].spawns is None or local not in exports.called_at:
            continue
        symbol, function = found
        what, span, nprocs, conditional = function.spawns
        call, skipped = exports.called_at[local]
        setup.helper_spawns.append(HelperSpawn(call, what, nprocs, conditional or skipped, local, symbol.path, span))


def _factory_lightning(project: "Project", setup: TrainingSetup) -> Optional[LightningSite]:
    """The Trainer/Fabric that a project function of another module builds and returns, when the script
    calls exactly one such factory (`make_trainer().fit(model)`); keywords its caller may set are unknown."""
    from .program import norm_path

    offered = _offered(project, "returns_trainer")
    if not offered:
        return None
    program = project.program
    exports = program.modules.get(norm_path(setup.script_path))
    made = {}
    for local in exports.called if exports is not None else ():
        found = program.function_called(setup.script_path, local) if _may_offer(exports, local, offered) else None
        if found is not None and found[1].returns_trainer is not None:
            made[(found[0].path, found[1].returns_trainer[1])] = (*found, local)
    if len(made) != 1:
        return None
    symbol, function, local = next(iter(made.values()))
    kind, span, chosen = function.returns_trainer
    summary = project.scripts.get(symbol.path)
    facts = summary.extra.get("setup") if summary is not None else None
    site = next((s for s in getattr(facts, "lightning", ()) if s.kind == kind and s.span == span), None)
    if site is None:
        return None
    changes: dict = {"path": symbol.path, "config": None}
    if "**" in chosen or "devices" in chosen:
        changes.update(devices=None, devices_options=())
    if "**" in chosen or "num_nodes" in chosen:
        changes.update(num_nodes=None, num_nodes_options=())
    if "**" in chosen or "strategy" in chosen:
        changes.update(strategy=None, strategy_class=None, strategy_kwargs=None, strategy_kwargs_complete=False)
    if "**" in chosen or "plugins" in chosen:
        changes["cluster_environment"] = "unknown"
    if local in exports.called_at:
        setup.lightning_from = (exports.called_at[local][0], local)
    return dataclasses.replace(site, **changes)


def _factory_strategy(project: "Project", site: LightningSite, importer: str) -> LightningSite:
    """The site with the DeepSpeedStrategy a project function of another module returns
    (`strategy=make_strategy()`): its class, keywords and config, the config read in that module."""
    symbol = project.program.symbol(importer, site.strategy_builder)
    summary = project.scripts.get(symbol.path) if symbol is not None else None
    facts = summary.extra.get("setup") if summary is not None else None
    found = getattr(facts, "returned_strategies", {}).get(symbol.name) if facts is not None else None
    if found is None:
        return site
    _, strategy_class, kwargs, complete, config, splats = found
    if config is not None:
        config = dataclasses.replace(config, origin=symbol.path, consumer="fabric" if site.kind == "fabric" else "lightning")
    # (the span stays the script's `strategy=make_strategy()`: the findings about the keywords are shown there)
    return dataclasses.replace(site, strategy_class=strategy_class, strategy_kwargs=kwargs, strategy_kwargs_complete=complete,
                               config=config, strategy_splats=splats, strategy_builder=None)


def lightning_path(setup: TrainingSetup) -> str:
    """The module of the setup's Trainer/Fabric call (the script's, or the factory's that returns it)."""
    site = setup.lightning
    return site.path if site is not None and site.path else setup.script_path


def _abs(project: "Project", display: str) -> Path:
    # Memoised per project: each `resolve()` is a handful of syscalls.
    memo = project.__dict__.get("_abs_memo")
    if memo is None:
        memo = project._abs_memo = {}  # type: ignore[attr-defined]
    found = memo.get(display)
    if found is None:
        path = Path(display)
        found = memo[display] = _resolve(project, path if path.is_absolute() else Path(project.root) / path)
    return found


def _resolve(project: "Project", path: Path) -> Path:
    """`path.resolve()`, with each folder resolved once per project.

    Resolving costs a system call per component of the path; the files of a project share a
    few folders, so only the last component (is it a link?) is checked per file.
    """
    folder, name = os.path.split(path)
    if not folder or name in ("", ".", ".."):
        return path.resolve()
    memo = project.__dict__.get("_folder_memo")
    if memo is None:
        memo = project._folder_memo = {}  # type: ignore[attr-defined]
    real = memo.get(folder)
    if real is None:
        real = memo[folder] = os.path.realpath(folder)
    joined = os.path.join(real, name)
    return Path(joined).resolve() if os.path.islink(joined) else Path(joined)


@dataclass(frozen=True)
class PathLink:
    """How a path that a launch line or a script writes was looked up: the project file it names, or
    why it stays unknown (not found in any folder it may be relative to, or found in more than one)."""

    written: Optional[str]
    found: Optional[str] = None  # display path of the file in the table
    real: Optional[Path] = None  # the file on disk (also when the table does not hold it)
    tried: tuple = ()  # display folders it was looked up in
    candidates: tuple = ()  # display paths of the different files it may name (ambiguous: more than one)
    bases: tuple = ()  # the folders (absolute) in which it names `real`

    def why(self) -> str:
        """One phrase: why `found` is None."""
        written = repr(self.written)
        if not self.written or "$" in self.written:
            return f"{written} is not a literal path"
        if self.written.startswith("~"):
            return f"{written} is in a home folder, outside the project"
        if len(self.candidates) > 1:
            return f"{written} is ambiguous: {', '.join(self.candidates)}"
        if self.real is not None:
            return f"{written} is {self.candidates[0] if self.candidates else self.real}, not a checked file of its kind"
        where = ", ".join(self.tried)
        return f"{written} is not found relative to {where}" if where else f"{written} is not found"


def _table_index(project: "Project", table: dict) -> dict:
    """Resolved path -> display path of `table`, built once per project and table (a table that grew
    gets a fresh one): every lookup is then a dictionary hit, whatever the size of the tree."""
    memo = project.__dict__.get("_table_index")
    if memo is None:
        memo = project._table_index = {}  # type: ignore[attr-defined]
    found = memo.get(id(table))
    if found is None or found[0] is not table or found[1] != len(table):
        found = memo[id(table)] = (table, len(table), {_abs(project, p): p for p in table})
    return found[2]


def resolve_path(project: "Project", table: dict, written: Optional[str], bases: list) -> PathLink:
    """The file `written` names, seen from each of `bases` ((absolute folder, display folder) pairs):
    exactly by path, never by a same-named file elsewhere. Found from several bases as different files,
    it is ambiguous and stays unknown; a file on disk that the table lacks is reported as such."""
    if not written or "$" in written or written.startswith("~"):
        return PathLink(written)
    index = _table_index(project, table)
    hits: dict = {}  # real path -> [bases it is found from]
    tried = []
    for base, display in bases if not os.path.isabs(written) else [(Path("/"), "/")]:
        if display not in tried:
            tried.append(display)
        candidate = _resolve(project, base / written)
        if candidate in index or candidate in hits or os.path.isfile(candidate):
            hits.setdefault(candidate, []).append(base)
    shown = tuple(index.get(real) or display_of(project, real) for real in hits)
    if len(hits) != 1:
        return PathLink(written, tried=tuple(tried), candidates=shown)
    real, found_from = next(iter(hits.items()))
    return PathLink(written, index.get(real), real, tuple(tried), shown, tuple(found_from))


def display_of(project: "Project", real: Path) -> str:
    try:
        shown = os.path.relpath(real, project.root)
    except ValueError:  # another drive (Windows)
        return str(real)
    return str(real) if shown.startswith("..") else shown


def _launch_bases(project: "Project", launch_path: str, command) -> list:
    """The folders a launch line's relative paths may be relative to, as (absolute, display) pairs: the
    folder the file is run from -- its own folder or one above it, up to the project root (`bash
    scripts/zero/run.sh` from the project's folder) -- or the folder its `cd DIR` moves to from there."""
    launch_dir = _abs(project, launch_path).parent
    launch_display = os.path.dirname(launch_path) or "."
    root = _resolve(project, Path(project.root) / ".")
    root_display = str(project.root) if os.path.isabs(launch_path) else _root_display(project)
    if launch_dir != root and root not in launch_dir.parents:
        outer = _checked_folder(project, launch_dir)
        if outer is not None:
            root, root_display = outer
    starts = [(launch_dir, launch_display)]
    if launch_dir != root and root in launch_dir.parents:
        folder, display = launch_dir, launch_display
        while folder != root:
            folder, display = folder.parent, os.path.dirname(display) if display not in ("", ".") else ".."
            starts.append((folder, display or root_display))
    elif launch_dir != root:
        starts.append((root, root_display))
    cwd = getattr(command, "cwd", None)
    if cwd is None or cwd.value is None:
        return starts  # (after a `cd` that is not literal, the same folders: the path must still name one file)
    if getattr(cwd, "script_relative", False):
        return [(launch_dir / cwd.value, os.path.normpath(os.path.join(launch_display, cwd.value)))]
    if os.path.isabs(cwd.value):
        # (`cd /workspace` of a container image that copies the repository there: not this machine's folder)
        return [(Path(cwd.value), cwd.value)] if os.path.isdir(cwd.value) else starts
    return [(base / cwd.value, os.path.normpath(os.path.join(display, cwd.value))) for base, display in starts]


def _checked_folder(project: "Project", folder: Path) -> Optional[tuple]:
    """(resolved, as given) of the outermost folder named on the command line that holds `folder`."""
    holding = [(path, given) for path, given in project.checked.items() if path == folder or path in folder.parents]
    return min(holding, key=lambda found: len(found[0].parts)) if holding else None


def _root_display(project: "Project") -> str:
    """The project root as relative display paths show it (relative to the working directory)."""
    shown = project.__dict__.get("_root_display")
    if shown is None:
        try:
            shown = os.path.relpath(str(project.root))
        except ValueError:  # another drive (Windows)
            shown = str(project.root)
        project._root_display = shown  # type: ignore[attr-defined]
    return shown


def script_link(project: "Project", launch_path: str, command) -> PathLink:
    """The project script a launch command starts (memoised per command)."""
    memo = project.__dict__.get("_script_links")
    if memo is None:
        memo = project._script_links = {}  # type: ignore[attr-defined]
    key = id(command)
    found = memo.get(key)
    if found is None or found[0] is not command:
        bases = _launch_bases(project, launch_path, command)
        link = resolve_path(project, project.scripts, command.script, bases) if command.script else \
            _module_link(project, command, bases)
        if command.script and link.found is None and link.real is None:
            module = _console_script_module(project, command.script, bases)
            if module is not None:  # `torchrun --no-python tabrec-train`: the entry point pip installed
                link = _module_file_link(project, module, getattr(command, "env", {}).get("PYTHONPATH"), bases)
        found = memo[key] = (command, link)
    return found[1]


def forget_unresolved_script_links(project: "Project") -> None:
    """After scripts joined `project.scripts`: drop the memoised links that found no script (they may
    find one now); a link that found one keeps it (what it names on disk does not depend on the table)."""
    memo = project.__dict__.get("_script_links")
    if memo:
        for key in [key for key, (_, link) in memo.items() if link.found is None]:
            del memo[key]


def named_by_accelerate_yaml(project: "Project", path: str) -> bool:
    """Does an accelerate config (a YAML with `deepspeed_config.deepspeed_config_file`) in the folder of
    the DeepSpeed config `path` or a folder above it, up to the project root, name it, relative to one
    of the folders `accelerate launch` may run in (that YAML's folder or one above it)? For a config
    no launch line links: its readers are still accelerate's."""
    from ..sources.yaml_configs import read_yaml

    root = os.path.realpath(str(project.root))
    target = os.path.realpath(path)  # (display paths are relative to the working directory)
    folders = _folders_up(os.path.dirname(target), root)
    for folder in folders:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith((".yaml", ".yml")))[:50]
        except OSError:
            continue
        for name in names:
            doc = read_yaml(os.path.join(folder, name), name)
            section = doc.value.get("deepspeed_config") if isinstance(doc.value, dict) else None
            written = section.get("deepspeed_config_file") if isinstance(section, dict) else None
            if isinstance(written, str) and any(os.path.realpath(os.path.join(base, written)) == target
                                                for base in _folders_up(folder, root)):
                project.note_input(os.path.join(folder, name))
                return True
    return False


def _folders_up(folder: str, root: str) -> list:
    """`folder` and each folder above it up to `root`."""
    out = [folder]
    while folder != root and folder.startswith(root + os.sep):
        folder = os.path.dirname(folder)
        out.append(folder)
    return out


def starts_a_script(command) -> bool:
    """Does the launch line start a Python file: a script path, or a module (`-m pkg.train`, `--module`)?"""
    return bool(command.script or getattr(command, "module", None))


def _module_link(project: "Project", command, bases: list) -> PathLink:
    """The file `python -m pkg.train` runs: pkg/train.py (or pkg/train/__main__.py) from the folder the
    line runs in, or from a literal PYTHONPATH folder of the line (`PYTHONPATH=src torchrun -m pkg.train`)."""
    return _module_file_link(project, getattr(command, "module", None), getattr(command, "env", {}).get("PYTHONPATH"),
                             bases)


def _console_script_module(project: "Project", name: str, bases: list) -> Optional[str]:
    """The module of a console script (`tabrec-train = "tabrec.cli:main"` in `[project.scripts]` of a
    pyproject.toml in a folder the line runs in, or the project root), which `pip install -e .` puts on
    PATH; None when no such entry names it."""
    if "/" in name or name.endswith(".py"):
        return None
    from ..settings import tomllib
    from ..sources.files import read_regular

    for folder in dict.fromkeys([*(base for base, _ in bases), Path(project.root)]):
        path = folder / "pyproject.toml"
        project.note_input(str(path))
        try:
            data = tomllib.loads(read_regular(str(path)).decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            continue
        scripts = data.get("project", {}).get("scripts", {}) if isinstance(data.get("project"), dict) else {}
        target = scripts.get(name) if isinstance(scripts, dict) else None
        if isinstance(target, str) and ":" in target:
            return target.split(":", 1)[0].strip()
    return None


def _module_file_link(project: "Project", module: Optional[str], env, bases: list) -> PathLink:
    if not module or not all(part.isidentifier() for part in module.split(".")):
        return PathLink(module)
    # (`PYTHONPATH=$PWD/src:$PYTHONPATH`: its readable entries, `$PWD` being the folder the line runs in)
    path_list = (getattr(env, "value", None) or getattr(env, "in_launch_dir", None) or "") if env else ""
    extra = [p for p in path_list.split(":") if p and "$" not in p]
    roots = list(bases) + [(base / p, os.path.normpath(os.path.join(display, p))) for p in extra
                           for base, display in bases if not os.path.isabs(p)]
    stem = module.replace(".", "/")
    link = PathLink(module)
    for written in (f"{stem}.py", f"{stem}/__main__.py"):
        link = resolve_path(project, project.scripts, written, roots)
        if link.found is not None or link.real is not None:
            return link
    if not link.candidates:  # a src/ layout installed (`pip install -e .`): the package in a src folder
        for written in (f"{stem}.py", f"{stem}/__main__.py"):
            in_src = resolve_path(project, project.scripts, written,
                                  [(base / "src", os.path.join(display, "src")) for base, display in bases])
            if in_src.found is not None or in_src.real is not None:  # (a plain one: upgraded once launched)
                return in_src
    return link


def launched_files(project: "Project") -> set:
    """Resolved paths of the files that launch commands start, whether or not discovery parsed them."""
    return {link.real for link in (script_link(project, path, command) for path, launch in project.launches.items()
                                   for command in getattr(launch, "commands", []) if starts_a_script(command))
            if link.real is not None}


# -- linking ---------------------------------------------------------------------------------

def link_setups(project: "Project", settings: Optional["Settings"] = None) -> list[TrainingSetup]:
    """Every training setup of the project (cached on the project)."""
    cached = getattr(project, "_setups", None)
    if cached is not None:
        return cached
    setups: list[TrainingSetup] = []
    started: set[str] = set()
    unlinked = []
    for launch_path, launch in project.launches.items():
        for command in getattr(launch, "commands", []):
            if not starts_a_script(command):
                continue
            found = script_link(project, launch_path, command)
            if found.found is None:
                unlinked.append((launch_path, command, found))
                continue
            started.add(found.found)
            setup = _build(project, settings, found.found, launch_path, command)
            setups.append(setup)
    unlaunched = []
    for script, summary in project.scripts.items():
        if script in started:
            continue
        facts = summary.extra.get("setup")
        if isinstance(facts, ScriptSetupFacts) and (facts.uses_deepspeed or facts.lightning or facts.spawns):
            unlaunched.append(_build(project, settings, script, None, None))
    setups += _without_taken_factories(setups + unlaunched, unlaunched)
    project._setups = setups  # type: ignore[attr-defined]
    project._unlinked = unlinked  # type: ignore[attr-defined]
    return setups


def _without_taken_factories(every: list, unlaunched: list) -> list:
    """The unlaunched setups, less those of a module whose only part in training is the Trainer a factory
    function of it returns to another setup (`factory.py` of `make_trainer().fit(...)` in train.py):
    that Trainer is the other setup's, and its findings would come twice."""
    from .program import norm_path

    taken = {(norm_path(s.lightning.path), s.lightning.span) for s in every if s.lightning is not None
             and s.lightning.path}
    if not taken:
        return unlaunched
    return [s for s in unlaunched if s.facts.uses_deepspeed or s.facts.spawns or s.helper_spawns
            or (s.summary.module is not None and s.summary.module.main_guard)
            or not all((norm_path(s.script_path), site.span) in taken for site in s.facts.lightning)]


def launched_script_paths(project: "Project") -> set:
    """Scripts of the project that some launch command starts."""
    return {link.found for link in (script_link(project, path, command) for path, launch in project.launches.items()
                                    for command in getattr(launch, "commands", []) if starts_a_script(command))
            if link.found is not None}


def _build(project: "Project", settings, script: str, launch_path: Optional[str], command) -> TrainingSetup:
    command = _with_deepspeed_env_file(project, launch_path, _with_deepspeed_hostfile(project, launch_path, command))
    command = _with_sourced_threads(project, launch_path, command)
    summary = project.scripts[script]
    facts = summary.extra.get("setup") or ScriptSetupFacts()
    setup = TrainingSetup(script_path=script, summary=summary, facts=facts, launch_path=launch_path, command=command)
    setup.lightning = next((s for s in facts.lightning if s.kind == "trainer"), None) or \
        next((s for s in facts.lightning if s.kind == "fabric"), None)
    if setup.lightning is None and summary.module is not None and summary.module.called:
        setup.lightning = _factory_lightning(project, setup)
    if setup.lightning is not None and setup.lightning.strategy_builder is not None:  # `strategy=make_strategy()`
        setup.lightning = _factory_strategy(project, setup.lightning, setup.lightning.path or script)
    if setup.lightning is not None and setup.lightning.strategy_splats is not None:  # `DeepSpeedStrategy(**KW)`
        setup.lightning = resolved_lightning_site(project.program, setup.lightning, setup.lightning.path or script)
    if setup.lightning is not None and (setup.lightning.devices_field or setup.lightning.num_nodes_field):
        setup.lightning = _lightning_class_defaults(project, setup.lightning, setup.lightning.path or script)
    if setup.lightning is not None and setup.lightning.devices_options:
        args = script_args(command)
        given = option_value(args, setup.lightning.devices_options)
        devices = (int(given[0]) if given[0].isdigit() else None) if given else setup.lightning.devices
        if not given and option_passed(args, setup.lightning.devices_options) is not False:
            devices = None  # (`"$@"` may pass it)
        setup.lightning = dataclasses.replace(setup.lightning, devices=devices)
    if setup.lightning is not None and setup.lightning.num_nodes_options:  # `num_nodes=args.nodes`
        site = setup.lightning
        setup.lightning = dataclasses.replace(site, num_nodes=launched_int(
            script_args(command), site.num_nodes, site.num_nodes_options, site.num_nodes_direct))
    setup.accelerate = _accelerate_config(project, launch_path, command)
    if setup.accelerate is not None and setup.accelerate.unknown:
        setup.notes["accelerate_config"] = setup.accelerate.unknown
    if setup.lightning is None and command is not None:
        _lightning_cli(project, setup)
    if summary.module is not None and summary.module.called:
        _helper_spawns(project, setup)
    _processes(setup, settings)
    launch = project.launches.get(launch_path) if launch_path is not None else None
    _slurm_tasks(setup, getattr(launch, "sbatch", None))
    _env_device_indexes(project, setup)
    _threads(setup)
    _config(project, setup)
    if setup.lightning_cli is not None:
        _lightning_cli_config_positions(setup)
    for args in facts.hf_training_args:
        resolved = args
        if args.class_fields:  # `per_device_train_batch_size=cfg.batch_size`, `cfg = RunConfig()` of another module
            resolved = resolved.with_class_defaults(lambda klass, name: _class_default(project, script, klass, name))
        if args.imported_fields:  # `per_device_train_batch_size=S.PER_DEVICE_BATCH` of `from sft import settings as S`
            from .config_overlays import imported_values

            resolved = resolved.with_imported_constants(imported_values(project.program, script))
        if resolved is not args:
            setup.resolved[id(args)] = resolved
    for init in facts.deepspeed_inits:
        if init.optimizer is not None and init.optimizer.builder:
            symbol = project.program.symbol(script, init.optimizer.builder)
            built = symbol.function.returns_optimizer if symbol is not None and symbol.function else None
            path, how = (symbol.path if symbol is not None else None), init.optimizer.how
            if built is None:
                # `optimizer=optimizer_factory(lr)`: the factory returns a callable that DeepSpeed calls;
                # `make_optimizer(params)` or `optimizer=make_optimizer` of a module-level partial
                found = imported_builder(project, script, init.optimizer.builder)
                if found is not None and (how != "passed" or found[1][3] == PARTIAL_NAME):
                    path, built, how = found[0], found[1][:3], found[1][3]
            if built is not None:  # `optimizer=build_optimizer(model)` from another module
                qualname, span, keywords = built
                setup.resolved[id(init.optimizer)] = ClientOptimizer(qualname, span, keywords, init.optimizer.where,
                                                                     path=path, how=how)
    return setup


def _yaml_config(project: "Project", setup: TrainingSetup, link: ConfigLink, found: "PathLink") -> None:
    """A config file the script reads with yaml.safe_load: its mapping as a config document at its keys
    (the rules read it as a dict config: never strict, no JSON fix)."""
    from ..sources import yaml_configs

    project.note_input(str(found.real))
    display = display_of(project, found.real)
    doc = yaml_configs.read_yaml(str(found.real), display)
    if doc.error is not None or not isinstance(doc.value, dict) or not all(isinstance(k, str) for k in doc.value):
        setup.notes["config"] = f"{display} {doc.error or 'is no mapping of DeepSpeed keys'}"
        return
    link.value, link.how = doc.value, f"{link.how} (YAML, read with yaml.safe_load)"
    link.key_spans, link.key_path = yaml_configs.config_keys(doc), display


def _dumped_config(project: "Project", setup: TrainingSetup, link: ConfigLink, written: str, bases: list) -> bool:
    """The config a project script writes with json.dump to the file `written` names, when the tree does not
    hold that file (`python tools/make_ds_config.py --out build/ds.json` as a Makefile prerequisite): the
    dict it dumps (`ScriptSetupFacts.dumped_configs`). Its path is taken from the folders it is likely run
    from: the project root, its own folder, or where the launch runs (the Makefile that runs both); exactly
    one script must write it."""
    from .config_dicts import NotLiteral, OptionLeaf, given_options

    folders = [folder for folder, _ in bases]
    targets = {os.path.normpath(os.path.join(folder, written)) for folder in folders} if not os.path.isabs(written) \
        else {os.path.normpath(written)}
    root = str(Path(project.root))
    found = []
    for path, summary in project.scripts.items():
        facts = summary.extra.get("setup")
        for dumped, options, ref in getattr(facts, "dumped_configs", ()) or ():
            commands = _commands_starting(project, path) if options or _has_option_leaves(ref) else []
            # (the path its launch line passes, else the option's default)
            named = {(option_value(script_args(c), options) or (dumped,))[0] for c in commands} if options and commands \
                else {dumped}
            where = {os.path.normpath(os.path.join(str(base), name))
                     for base in (root, _abs(project, path).parent, *folders) for name in named}
            if targets & where:
                found.append((path, ref, commands))
    if len(found) != 1:
        return False
    path, ref, commands = found[0]
    ref = dataclasses.replace(ref, origin=path)
    # its command-line values: as the one launch line that runs it passes them, else unknown
    command = commands[0] if len(commands) == 1 else None
    args = script_args(command)
    given = (lambda options: option_passed(args, options)) if command is not None else (lambda options: None)
    if ref.how == "dict":
        value = given_options(ref.value, given, lambda options: _passed_word(args, options))
        link.value, link.key_spans, link.key_path = value, dict(ref.key_spans), path
    elif ref.how == "built" and command is None:
        opaque = [NotLiteral(a.what) if isinstance(a, OptionLeaf) else a for a in ref.arguments]
        ref = dataclasses.replace(ref, arguments=tuple(opaque), keywords=tuple(
            (k, NotLiteral(v.what) if isinstance(v, OptionLeaf) else v) for k, v in ref.keywords))
        if not _built_config(project, setup, ref, link):
            return False
    elif not _code_config(ref.how)(project, dataclasses.replace(setup, command=command) if ref.how == "built"
                                   else setup, ref, link):
        return False
    link.how = f"{written!r}, which {path}:{ref.span.start.row} writes with json.dump"
    link.ref_span, link.ref_path = ref.span, path
    return True


def _commands_starting(project: "Project", script: str) -> list:
    """The launch lines (commands) of the project's launch files that start `script`."""
    return [command for launch_path, launch in project.launches.items() for command in getattr(launch, "commands", [])
            if starts_a_script(command) and script_link(project, launch_path, command).found == script]


def _has_option_leaves(ref: ConfigRef) -> bool:
    from .config_dicts import OptionLeaf

    def has(value) -> bool:
        return isinstance(value, OptionLeaf) or isinstance(value, dict) and any(has(v) for v in value.values())

    return has(ref.value) or any(has(a) for a in ref.arguments) or any(has(v) for _, v in ref.keywords)


def _heredoc_config(setup: TrainingSetup, link: ConfigLink, written: str, loader: Optional[str]) -> bool:
    """The config a heredoc of the launch file writes to `written` before the launch line (`cat <<EOT >
    $CONFIG_JSON`): its body read as JSON, a dict config at its keys in the launch file (values the file does
    not show are NotLiterals). False when no heredoc before the line writes that path; True otherwise, with
    a note when its content cannot be read (the file on disk is then not what runs either)."""
    from ..sources.launch.model import heredoc_key

    command = setup.command
    key = heredoc_key(getattr(command, "cwd", None), written)
    write = getattr(command, "heredocs", {}).get(key) if key is not None else None
    if write is None or setup.launch_path is None:
        return False
    where = f"the heredoc at {setup.launch_path}:{write.span.start.row}"
    link.how = f"{link.how} (written by {where})"
    if write.body is None:
        setup.notes["config"] = f"{written!r} is written by {where}, with content the file does not show there"
        return True
    if loader == "yaml":
        setup.notes["config"] = f"{written!r} is written by {where} and read as YAML (not read here)"
        return True
    from ..sources.launch.parse import UNKNOWN

    try:
        value = json.loads(_unknowns_as_strings(write.body, UNKNOWN))
    except ValueError as error:
        setup.notes["config"] = f"{where} is not JSON: {error}"
        return True
    spans = _heredoc_key_spans(write)
    if not isinstance(value, dict) or spans is None:
        setup.notes["config"] = f"{where} writes no JSON object of DeepSpeed keys"
        return True
    value = _unknown_leaves(value, UNKNOWN)
    if value is None or set(_dict_key_paths(value)) != set(spans):
        # (a key that is a variable, or an expansion that adds keys: the keys as written are not the config's)
        setup.notes["config"] = f"{where} has keys its expansions change"
        return True
    link.value, link.key_spans, link.key_path = value, spans, setup.launch_path
    return True


def _unknowns_as_strings(text: str, unknown: str) -> str:
    """JSON text with each bare token holding `unknown` (`$MICRO` not known, outside any string) made a
    string, so that the document parses and that value reads as one the file does not show."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif ch.isspace() or ch in "{}[],:":
            out.append(ch)
            i += 1
        else:
            j = i
            while j < n and not (text[j].isspace() or text[j] in '{}[],:"'):
                j += 1
            token = text[i:j]
            out.append(f'"{unknown}"' if unknown in token else token)
            i = j
    return "".join(out)


def _unknown_leaves(value: Any, unknown: str) -> Any:
    """The parsed heredoc with each string that holds `unknown` a NotLiteral; None when a key holds one."""
    from .config_dicts import NotLiteral

    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if unknown in key:
                return None
            item = _unknown_leaves(item, unknown)
            if item is None and value[key] is not None:
                return None
            out[key] = item
        return out
    if isinstance(value, list):
        items = [_unknown_leaves(item, unknown) for item in value]
        if any(new is None and old is not None for new, old in zip(items, value)):
            return None
        return items
    if isinstance(value, str) and unknown in value:
        return NotLiteral("a shell expansion the launch file does not show")
    return value


def _dict_key_paths(value: dict, prefix: tuple = ()):
    """Every key path of nested dicts (not into lists)."""
    for key, item in value.items():
        yield prefix + (key,)
        if isinstance(item, dict):
            yield from _dict_key_paths(item, prefix + (key,))


def _heredoc_key_spans(write) -> Optional[dict]:
    """key path -> span of `"key": value` in the launch file, read from the heredoc's raw body (the keys are
    literal text where the values are expansions); keys under a list are left out. None: no JSON object."""
    from ..model import Location
    from ..textpos import LineIndex

    raw = write.raw
    index = LineIndex(raw)
    base_row, base_offset = write.body_span.start.row, write.body_span.start_offset

    def span(start: int, end: int) -> Span:
        a, b = index.location(start), index.location(end)
        return Span(Location(a.row + base_row - 1, a.column), Location(b.row + base_row - 1, b.column),
                    base_offset + start, base_offset + end)

    spans: dict = {}
    frames: list[dict] = []  # {"kind", "path", "key", "key_start", "index", "owner": (path, key start)}
    i, n = 0, len(raw)
    started = False
    while i < n:
        ch = raw[i]
        if ch.isspace() or ch in ",:":
            if frames and ch == "," and frames[-1]["kind"] == "[":
                frames[-1]["index"] += 1
            i += 1
            continue
        frame = frames[-1] if frames else None
        if ch in "{[":
            if frame is None and started:
                return None  # text after the document
            owner = None
            if frame is None:
                path = ()
            elif frame["kind"] == "{":
                if frame["key"] is None:
                    return None
                path = frame["path"] + (frame["key"],)
                owner = (path, frame["key_start"])
                frame["key"] = None
            else:
                path = frame["path"] + (frame["index"],)
            frames.append({"kind": ch, "path": path, "key": None, "key_start": 0, "index": 0, "owner": owner})
            started = True
            i += 1
            continue
        if ch in "}]":
            if frame is None or frame["kind"] != ("{" if ch == "}" else "["):
                return None
            frames.pop()
            if frame["owner"] is not None:
                spans[frame["owner"][0]] = (frame["owner"][1], i + 1)
            i += 1
            continue
        if frame is None:
            return None  # the body is no JSON object
        if ch == '"':
            j = i + 1
            while j < n and raw[j] != '"':
                j += 2 if raw[j] == "\\" else 1
            end = j + 1
        else:
            end = i
            while end < n and not (raw[end].isspace() or raw[end] in '{}[],:"'):
                end += 1
        if frame["kind"] == "{" and frame["key"] is None and ch == '"':
            try:
                frame["key"] = json.loads(raw[i:end])
            except ValueError:
                frame["key"] = raw[i + 1:end - 1]
            frame["key_start"] = i
        elif frame["kind"] == "{" and frame["key"] is not None:
            spans[frame["path"] + (frame["key"],)] = (frame["key_start"], end)
            frame["key"] = None
        i = end
    if frames or not started:
        return None
    return {path: span(*where) for path, where in spans.items() if all(isinstance(k, str) for k in path)}


def _lightning_class_defaults(project: "Project", site, module: str):
    """`Fabric(devices=s.devices, num_nodes=s.num_nodes)` with `s` another module's dataclass at its defaults:
    the site with those defaults when they are ints (else unknown, as before)."""
    from .values import UNKNOWN

    changes = {}
    for slot, attribute in (("devices_field", "devices"), ("num_nodes_field", "num_nodes")):
        found = getattr(site, slot)
        if found is not None:
            value = _class_default(project, module, found[0], found[1])
            if value is not UNKNOWN and isinstance(value, int) and not isinstance(value, bool):
                changes[attribute] = value
    return dataclasses.replace(site, **changes) if changes else site


def _passed_word(args: list, options: tuple) -> Optional[str]:
    """The literal word a launch line passes for one of `options`, else None."""
    given = option_value(args, options)
    return given[0] if given is not None and isinstance(given[0], str) else None


def _hf_arguments_class(project: "Project", script: str, klass: str) -> bool:
    """Does the project class `script` imports as `klass` derive from transformers' TrainingArguments?"""
    from .program_loads import imported_class_derives_from
    from .script_setup import HF_TRAINING_ARGS

    return imported_class_derives_from(project, script, klass, HF_TRAINING_ARGS)


def _class_default(project: "Project", script: str, klass: str, name: str) -> Any:
    """The literal default of a field of a project dataclass `script` names `klass`, or UNKNOWN (also for
    a class whose own `__init__` or `__post_init__` may set the field to something else)."""
    from .module_summary import NO_VALUE
    from .values import UNKNOWN

    value, symbol = project.program.field_default(script, klass, name)
    cls = symbol.klass if symbol is not None else None
    if cls is None or not cls.is_dataclass or {"__init__", "__post_init__"} & {*cls.methods, *cls.dropped_methods}:
        return UNKNOWN
    return UNKNOWN if value is None or value == NO_VALUE else value


def _with_deepspeed_hostfile(project: "Project", launch_path: Optional[str], command):
    """`deepspeed -H FILE` with FILE in the repository: the command with the processes its hosts and
    slots give (runner.py fetch_hostfile); the command itself when there is no such file to read."""
    facts = getattr(command, "deepspeed", None)
    if facts is None or launch_path is None or not facts.given.get("hostfile"):
        return command
    bases = _launch_bases(project, launch_path, command)
    for base, _ in bases:
        project.note_input(str(base / facts.given["hostfile"]))  # (one that appears later changes the world)
    found = resolve_path(project, {}, facts.given["hostfile"], bases)
    from ..sources.files import read_regular  # (never a FIFO)

    try:
        text = read_regular(str(found.real)).decode("utf-8", errors="replace") if found.real is not None else None
    except OSError:
        text = None
    from ..sources.launch.facts import apply_deepspeed_world, deepspeed_world, parse_hostfile

    pool = parse_hostfile(text) if text is not None else None
    linked = dataclasses.replace(command, reasons=dict(command.reasons))
    if pool is not None:
        apply_deepspeed_world(linked, deepspeed_world(facts, pool))
    elif "nnodes" in linked.reasons:
        why = found.why() if text is None else f"{facts.given['hostfile']!r} is a hostfile deepspeed refuses"
        linked.reasons["nnodes"] = f"every host of the hostfile: {why}"
    return linked


def _with_threads(command, value: Optional[str]):
    """The command with OMP_NUM_THREADS set for its ranks (`value` None: not a literal), which the launcher
    then leaves alone."""
    return dataclasses.replace(command, omp_num_threads_set=True, omp_num_threads=value, omp_num_threads_by_launcher=None,
                               reasons=dict(command.reasons))


def _with_sourced_threads(project: "Project", launch_path: Optional[str], command):
    """The command with the OMP_NUM_THREADS that a shell file of the repository it `source`s before it
    exports (`source scripts/node_env.sh`); the command itself when none does (or none can be read)."""
    if command is None or launch_path is None or not command.sourced or command.omp_num_threads_set:
        return command
    from ..sources.files import read_regular  # (never a FIFO)
    from ..sources.launch import parse_launch_file

    launch_dir = _abs(project, launch_path).parent
    memo = project.__dict__.setdefault("_sourced_exports", {})  # path -> exports (None: no such file); many setups ask
    for written, cwd in command.sourced:
        folders = [launch_dir / cwd] if cwd and not os.path.isabs(cwd) else [Path(cwd)] if cwd else []
        folders += [base for base, _ in _launch_bases(project, launch_path, command)] + [launch_dir]
        for folder in dict.fromkeys(folders):
            path = str(Path(written) if os.path.isabs(written) else folder / written)
            if path not in memo:
                project.note_input(path)
                try:
                    memo[path] = parse_launch_file(read_regular(path).decode("utf-8", errors="replace"), path).exports
                except OSError:
                    memo[path] = None
            exported = memo[path]
            if exported is None:
                continue
            if "OMP_NUM_THREADS" in exported:
                return _with_threads(command, exported["OMP_NUM_THREADS"])
            break  # (the first folder that has the file is the one the shell read)
    return command


DEEPSPEED_ENV_FILE = ".deepspeed_env"


def _with_deepspeed_env_file(project: "Project", launch_path: Optional[str], command):
    """A deepspeed launch that may start ranks on several hosts exports every `KEY=VALUE` line of the
    `.deepspeed_env` in the folder it runs from to each of them (runner.py main, the multi-node branch:
    DEEPSPEED_ENVIRONMENT_PATHS, the home folder and '.'): the command with an OMP_NUM_THREADS that file
    gives. A one-host launch never reads it. (Where the folder it runs from is not certain, any of them
    with the file counts: a thread limit it may set is not reported missing.)"""
    launcher = command.launcher("deepspeed") if command is not None and launch_path is not None else None
    if launcher is None or command.omp_num_threads_set or (command.nnodes == 1 and "force_multi" not in launcher.options):
        return command
    from ..sources.files import read_regular  # (never a FIFO)

    for base, _ in _launch_bases(project, launch_path, command):
        path = base / DEEPSPEED_ENV_FILE
        project.note_input(str(path))
        try:
            text = read_regular(str(path)).decode("utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            key, equals, value = line.partition("=")
            if equals and key.strip() == "OMP_NUM_THREADS":
                return _with_threads(command, value.strip())
    return command


def _lightning_devices(site: LightningSite) -> Optional[int]:
    devices = site.devices
    if isinstance(devices, bool):
        return None
    if isinstance(devices, int):
        return devices if devices > 0 else None
    if isinstance(devices, str):
        text = devices.strip()
        if text.isdigit():
            return int(text) or None
        if "," in text:
            return len([d for d in text.split(",") if d.strip()])
        return None
    if isinstance(devices, (list, tuple)):
        return len(devices) or None
    return None


def _accelerate_config(project: "Project", launch_path: Optional[str], command) -> Optional[yaml_configs.AccelerateLaunch]:
    """What `accelerate launch` does with its flags and `--config_file x.yaml` (None: not an accelerate launch)."""
    launcher = command.launcher("accelerate") if command is not None else None
    if launcher is None or command.accelerate is None:
        return None
    from ..sources import yaml_configs

    flags: dict = {}
    for key, option in launcher.options.items():
        flags[key] = True if option.is_flag else (option.value if option.value is not None else yaml_configs.NOT_LITERAL)
    config_given = "config_file" in launcher.options
    config = _launch_yaml(project, launch_path, command.accelerate.config_file, command) if config_given else None
    inherited = (command.omp_num_threads_set, command.omp_num_threads)
    return yaml_configs.accelerate_launch(flags, inherited, config, config_given)


def _launch_yaml(project: "Project", launch_path: Optional[str], written: str,
                 command=None) -> Optional[yaml_configs.YamlDoc]:
    """The YAML file a launch line names, read once per project: relative to the line's working
    directory (see _launch_bases); None when it is not found there, or found in several (another file each)."""
    if not written or "$" in written:
        return None
    memo = project.__dict__.get("_yaml_memo")
    if memo is None:
        memo = project._yaml_memo = {}  # type: ignore[attr-defined]
    # Display paths follow the launch file's: relative to the working directory, or absolute.
    bases = _job_bases(project, launch_path, command) if launch_path else [(Path(project.root), str(project.root))]
    candidates: dict = {}
    for base, display_base in bases:
        path = Path(written) if os.path.isabs(written) else base / written
        project.note_input(str(path))  # (one that appears later changes the link)
        if path.is_file():
            display = written if os.path.isabs(written) else os.path.normpath(os.path.join(display_base, written))
            candidates.setdefault(_resolve(project, path), display)
    if len(candidates) != 1:
        return None
    real, display = next(iter(candidates.items()))
    if real not in memo:
        from ..sources import yaml_configs

        doc = memo[real] = yaml_configs.read_yaml(str(real), display)
        if doc.text is not None:
            project.texts.setdefault(display, doc.text)  # for the code frames of findings reported there
    return memo[real]


def lightning_joins_launcher(setup: TrainingSetup) -> Optional[bool]:
    """Does Lightning recognise the processes the launcher started (and not spawn its own)?

    Lightning's cluster environments (accelerator_connector._choose_and_init_cluster_environment):
    TorchElastic (torchrun sets TORCHELASTIC_RUN_ID), SLURM (srun, unless the job name is
    "bash"/"interactive"), LSF, MPI (only with mpi4py installed), else LightningEnvironment,
    which spawns unless LOCAL_RANK is set (the deepspeed launcher and accelerate set it).
    """
    kind = setup.spawner_kind
    if kind in launcher_table.PER_NODE_KINDS:
        return True
    command = setup.command
    if kind == "srun" or (command is not None and command.srun is not None and kind is None):
        name = command.srun.job_name if command.srun else None
        return name not in ("bash", "interactive")  # no --job-name: the script's name
    if kind == "mpirun":
        return False  # only with mpi4py installed, which the files cannot show
    return None


def _processes(setup: TrainingSetup, settings) -> None:
    command = setup.command
    facts = setup.facts
    if command is not None:
        setup.launcher = command.launchers[0].kind if command.launchers else "unknown"
        spawner = launcher_table.spawner(command.launchers)
        setup.spawner_kind = spawner.kind if spawner else None
        setup.nodes = command.nnodes
        setup.procs_per_node = command.nproc_per_node
        setup.world_size = command.world_size
        for fact in ("nnodes", "nproc_per_node", "world_size"):
            if fact in command.reasons:
                setup.notes[fact] = command.reasons[fact]
        if spawner is not None and spawner.kind in ("srun", "mpirun"):
            if setup.procs_per_node is None and command.srun is not None and command.srun.ntasks is not None \
                    and command.srun.nodes == 1:
                setup.procs_per_node = command.srun.ntasks
        if setup.spawner_kind == "srun" and setup.nodes is None and command.srun is not None:
            setup.nodes = command.srun.nodes
    site = setup.lightning
    framework_spawns = False
    if site is not None:
        devices = _lightning_devices(site)
        joins = lightning_joins_launcher(setup) if setup.spawner_kind else None
        if setup.spawner_kind is None:
            # `python train.py` (or no launch file): Lightning starts `devices` processes per node.
            if devices is not None and setup.procs_per_node is None:
                setup.procs_per_node = devices
                setup.notes["nproc_per_node"] = f"Lightning {site.kind.title()}(devices={site.devices!r})"
            if site.num_nodes is not None and setup.nodes is None:
                setup.nodes = site.num_nodes
            framework_spawns = devices is not None and devices > 1
        elif joins is False and devices is not None and devices > 1:
            framework_spawns = True
    for spawn in [*facts.spawns, *setup.helper_spawns]:
        framework_spawns = True
        if setup.spawner_kind is None and spawn.nprocs is not None and setup.procs_per_node is None:
            setup.procs_per_node = spawn.nprocs
            setup.notes["nproc_per_node"] = f"{spawn.what}(nprocs={spawn.nprocs})"
    if setup.spawner_kind is None and command is not None and setup.launcher == "python" and setup.nodes is None:
        setup.nodes = 1
    accelerate = setup.accelerate
    if accelerate is not None and accelerate.config is not None and not accelerate.unknown \
            and setup.spawner_kind == "accelerate":
        processes, machines = accelerate.num_processes, accelerate.num_machines
        if setup.world_size is None and processes:
            setup.world_size = processes
        if setup.nodes is None and machines:
            setup.nodes = machines
        if setup.procs_per_node is None and processes and machines:
            setup.procs_per_node = processes // machines
            setup.notes["nproc_per_node"] = f"num_processes / num_machines of {accelerate.config.path}"
    if settings is not None:
        if setup.procs_per_node is None and settings.nproc_per_node:
            setup.procs_per_node = settings.nproc_per_node
            setup.notes["nproc_per_node"] = "nproc-per-node in [tool.dslint]"
        if setup.nodes is None and settings.nodes:
            setup.nodes = settings.nodes
            setup.notes["nnodes"] = "nodes in [tool.dslint]"
    if setup.world_size is None and setup.procs_per_node is not None and setup.nodes is not None:
        setup.world_size = setup.procs_per_node * setup.nodes
    launcher_spawns = setup.spawner_kind is not None
    setup.spawner = ("both" if launcher_spawns and framework_spawns else "launcher" if launcher_spawns
                     else "framework" if framework_spawns else "none" if command is not None else "unknown")


# What the torch launchers set for each rank (torch/distributed/elastic/agent/server/local_elastic_agent.py
# _start_workers); srun sets SLURM_PROCID/SLURM_LOCALID/SLURM_NTASKS instead (srun(1), OUTPUT ENVIRONMENT
# VARIABLES) and none of these.
TORCH_RANK_ENV = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE")
# Options that give each task its own GPUs (srun(1)/sbatch(1): --gpus-per-task implies --gpu-bind=per_task,
# --ntasks-per-gpu binds tasks to GPUs); without one, every task of a node sees all of the node's GPUs.
_PER_TASK_GPU_OPTIONS = ("gpus-per-task", "gpu-bind", "ntasks-per-gpu", "tres-per-task")


def _slurm_tasks(setup: TrainingSetup, sbatch) -> None:
    """srun in the chain: how many tasks it starts per node; when it starts the script's ranks itself,
    which torch rank variables they lack and whether the tasks of a node see the same GPUs."""
    command = setup.command
    srun = command.launcher("srun") if command is not None else None
    if srun is None or command.srun is None:
        return
    own = srun.options
    if "ntasks-per-node" in own:
        setup.slurm_tasks_per_node = command.srun.ntasks_per_node
    elif not any(key in own for key in ("ntasks", "nodes", "distribution", "ntasks-per-gpu")):
        setup.slurm_tasks_per_node = command.srun.ntasks_per_node  # the job's, from #SBATCH
    ntasks, nodes = command.srun.ntasks, command.srun.nodes
    if setup.slurm_tasks_per_node is not None:
        setup.slurm_tasks_on_a_node = setup.slurm_tasks_per_node
    elif ntasks is not None and nodes and "ntasks-per-node" not in own and "ntasks-per-gpu" not in own:
        setup.slurm_tasks_on_a_node = -(-ntasks // nodes)  # (an exact --nodes=N: both its minimum and maximum)
    if setup.spawner_kind != "srun":
        return  # a launcher after srun starts the ranks (and sets their variables)
    if "export" not in own:  # srun --export=NONE/... changes what the tasks inherit
        setup.rank_env_missing = tuple(k for k in TORCH_RANK_ENV if k not in command.env)
    component = sbatch.for_srun(srun) if sbatch is not None else None
    directives = {d.key for d in component.all} if component is not None else set()
    per_task = any(key in own for key in _PER_TASK_GPU_OPTIONS) or bool(directives & set(_PER_TASK_GPU_OPTIONS))
    setup.slurm_tasks_share_gpus = not per_task and "CUDA_VISIBLE_DEVICES" not in command.env


def _env_device_indexes(project: "Project", setup: TrainingSetup) -> None:
    """The `set_device(i)` calls with an index only the environment gives that the launched script runs: its
    own, and those in the top-level project functions it calls (`init_distributed()` of distributed.py),
    unless that module sets one of the variables itself."""
    setup.env_device_indexes = [(setup.script_path, index) for index in setup.facts.env_device_indexes]
    setup.env_device_indexes += _helper_env_device_indexes(project, setup)
    setup.env_device_indexes += _class_env_device_indexes(project, setup)
    setup.env_device_indexes += _namespace_env_device_indexes(project, setup)
    args = script_args(setup.command)  # (an option's default that reads the environment: unless the line passes it)
    setup.env_device_indexes = [(path, index) for path, index in setup.env_device_indexes
                                if not index.unless_options or option_passed(args, index.unless_options) is False]


def _helper_env_device_indexes(project: "Project", setup: TrainingSetup) -> list:
    """Those of `_env_device_indexes` in other modules' functions; once per script (many launches
    start the same one)."""
    cache = project.__dict__.setdefault("_helper_env_device_indexes", {})
    if setup.script_path not in cache:
        cache[setup.script_path] = _find_helper_env_device_indexes(project, setup)
    return list(cache[setup.script_path])


def _class_env_device_indexes(project: "Project", setup: TrainingSetup) -> list:
    """`set_device(rt.local_rank)` of a `Runtime()` whose class (another module's) defaults the field to an
    environment read: that read, in the class's module, unless that module sets the variable itself."""
    found = []
    for klass, name in setup.facts.class_env_device_indexes:
        symbol = project.program.symbol(setup.script_path, klass)
        summary = project.scripts.get(symbol.path) if symbol is not None and symbol.klass is not None else None
        facts = summary.extra.get("setup") if summary is not None else None
        index = facts.env_fields.get(f"{symbol.name}.{name}") if isinstance(facts, ScriptSetupFacts) else None
        if index is not None and not any(key in facts.env_sets for key in index.keys):
            found.append((symbol.path, index))  # (its span: the field, in the class's module)
    return found


def _namespace_env_device_indexes(project: "Project", setup: TrainingSetup) -> list:
    """`init_distributed(args)` of another module doing `set_device(args.local_rank)`, where the script's
    `--local_rank` defaults to an environment read: that read (unless the launch line passes the option)."""
    found = []
    facts = setup.facts
    for local, position in facts.namespace_calls if facts.option_env_indexes else ():
        symbol = project.program.symbol(setup.script_path, local)
        summary = project.scripts.get(symbol.path) if symbol is not None and symbol.function is not None else None
        helper = summary.extra.get("setup") if summary is not None else None
        for name, at, attr in helper.param_device_indexes if isinstance(helper, ScriptSetupFacts) else ():
            index = facts.option_env_indexes.get(attr)
            if name == symbol.name and at == position and index is not None and \
                    not any(key in helper.env_sets for key in index.keys):
                found.append((setup.script_path, index))
    return found


def _find_helper_env_device_indexes(project: "Project", setup: TrainingSetup) -> list:
    found = []
    module = setup.summary.module
    for local in module.called if module is not None else ():
        symbol = project.program.symbol(setup.script_path, local)
        if symbol is None or symbol.function is None or not symbol.function.selects_device \
                or symbol.path == setup.script_path:
            continue
        summary = project.scripts.get(symbol.path)
        facts = summary.extra.get("setup") if summary is not None else None
        for index in facts.env_device_indexes if isinstance(facts, ScriptSetupFacts) else ():
            if index.function == symbol.name and not any(key in facts.env_sets for key in index.keys):
                found.append((symbol.path, index))
    return found


def _threads(setup: TrainingSetup) -> None:
    command = setup.command
    if "OMP_NUM_THREADS" in setup.facts.env_sets:
        value, _ = setup.facts.env_sets["OMP_NUM_THREADS"]
        setup.threads_per_rank, setup.threads_source = value or "set in the script", "the script sets OMP_NUM_THREADS"
        return
    if command is None:
        return
    setup.core_binding = bool(command.bind_cores_to_rank or (command.mpirun and command.mpirun.bind_to))
    accelerate = setup.accelerate
    if accelerate is not None and not accelerate.unknown and setup.spawner_kind == "accelerate":
        setup.threads_per_rank, setup.threads_source = accelerate.omp_num_threads, accelerate.omp_source
        return
    if command.omp_num_threads_set:
        setup.threads_per_rank = command.omp_num_threads or "set (not a literal)"
        setup.threads_source = "OMP_NUM_THREADS on the launch line"
    elif command.omp_num_threads_by_launcher is not None:
        setup.threads_per_rank = command.omp_num_threads_by_launcher
        setup.threads_source = f"{setup.spawner_kind} sets OMP_NUM_THREADS={command.omp_num_threads_by_launcher} when unset"
    elif setup.spawner_kind == "deepspeed":
        if command.bind_cores_to_rank:
            setup.threads_per_rank = "cores // ranks per node"
            setup.threads_source = "deepspeed --bind_cores_to_rank (numactl + OMP_NUM_THREADS per rank)"
        else:
            setup.threads_per_rank = "all cores"
            setup.threads_source = "deepspeed launcher leaves OMP_NUM_THREADS unset and does not bind cores"
    elif setup.spawner_kind is None and setup.lightning is not None and setup.spawner == "framework":
        setup.threads_per_rank = "cores // devices"
        setup.threads_source = "Lightning sets OMP_NUM_THREADS = CPUs // processes when unset"
    elif setup.spawner_kind == "lightning":
        setup.threads_per_rank = "cores // devices"
        setup.threads_source = "fabric run sets OMP_NUM_THREADS = CPUs // processes when unset"


def _config(project: "Project", setup: TrainingSetup) -> None:
    command = setup.command
    facts = setup.facts
    bases = config_bases(project, setup)
    consumer = _consumer(setup)
    link = ConfigLink(consumer=consumer)
    chosen: Optional[tuple[str, str, Optional[Span], Optional[Span]]] = None  # (written path, how, ref span, launch span)
    refs = list(facts.config_refs)
    if setup.lightning is not None and setup.lightning.config is not None:
        refs.insert(0, setup.lightning.config)
    if not refs and facts.helper_calls and setup.lightning is None:
        from .helper_links import helper_config_ref

        helped = helper_config_ref(project, setup)  # `build_engine(model, args)` of engine.py
        if helped is not None:
            refs.append(helped)
    args = script_args(command)
    loader = None  # "yaml": the script reads the chosen file with yaml.safe_load
    for ref in refs:
        ref = resolved_plugin_ref(project.program, ref, setup.script_path)  # `DeepSpeedPlugin(**BASE_KW)`
        written = None
        how = f"{ref.what} in {setup.script_path}"
        launch_span = None
        if ref.how == "literal":
            if ref.unless_options and option_value(args, ref.unless_options) is not None:
                continue  # the launch line changes what the path is built from
            written = ref.path
            if ref.unless_options:
                how = f"{ref.what} in {setup.script_path}, with the default of {' / '.join(ref.unless_options)}"
        elif ref.how == "argument":
            given = option_value(args, ref.options)
            if given is not None:
                written, launch_span = given
                how = f"{ref.what} ← {' / '.join(ref.options)} on the launch line"
            elif ref.path:
                written, how = ref.path, f"{ref.what}: default of {' / '.join(ref.options)}"
            elif ref.class_field is not None and _hf_arguments_class(project, setup.script_path, ref.class_field[0]):
                value = _class_default(project, setup.script_path, *ref.class_field)  # `deepspeed: str = "ds.json"`
                if isinstance(value, str) and value and option_passed(args, ref.options) is False:
                    written, how = value, f"{ref.what}: default of the field"
        elif ref.how == "env" and command is not None and ref.env in command.env:
            env = command.env[ref.env]
            written, launch_span = env.value, env.span
            how = f"{ref.what} ← ${ref.env} on the launch line"
        elif ref.how == "env" and ref.path:
            written, how = ref.path, f"{ref.what}: default of ${ref.env}"
        elif ref.how == "dict" and isinstance(ref.value, dict):
            from .config_dicts import resolve_leaves
            from .config_overlays import imported_values

            home = ref.origin or setup.script_path
            link.value = resolve_leaves(ref.value, imported_values(project.program, home))  # (`ZERO_STAGE`)
            link.how, link.ref_span, link.ref_path = f"{ref.what}: a dict in {home}", ref.span, home
            link.key_spans, link.key_path = dict(ref.key_spans), home
            setup.config = link
            return
        elif ref.how == "config-object" and ref.loader == "node":  # `OmegaConf.to_container(cfg.deepspeed)`
            from .omegaconf_values import setup_read_node

            found = setup_read_node(project, setup, ref.config_read)
            if isinstance(found, tuple):
                link.value, link.key_path, link.key_spans = found
                link.how = f"{ref.what}: {'.'.join(ref.config_read.keys)} of the {ref.config_read.how} YAML config"
                link.ref_span, link.ref_path = ref.span, setup.script_path
                setup.config = link
                return
        elif ref.how == "config-object":
            from .omegaconf_values import setup_read_value

            value = setup_read_value(project, setup, ref.config_read)
            if isinstance(value, str) and value:
                written = value
                how = f"{ref.what}: {'.'.join(ref.config_read.keys)} of the {ref.config_read.how} YAML config"
        elif ref.how == "class-field":  # `deepspeed=cfg.deepspeed`, `cfg = RunConfig()` of another module
            value = _class_default(project, setup.script_path, *ref.class_field)
            if isinstance(value, str) and value:
                written, how = value, f"{ref.what}: the default of {'.'.join(ref.class_field)}"
        elif ref.how == "plugin":
            _plugin_config(setup, ref, link)
            setup.config = link
            return
        elif ref.how == "imported" and (path := _imported_path(project, setup, ref)) is not None:
            written, how = path  # `deepspeed=S.DS_CONFIG`, `DS_CONFIG = "configs/zero2.json"` in settings.py
        elif ref.how in ("built", "imported", "layered"):  # a config the project's code builds
            if _code_config(ref.how)(project, setup, ref, link):
                setup.config = link
                return
        if written:
            chosen = (written, how, ref.span, launch_span)
            loader = ref.loader
            break
    if chosen is None and command is not None and facts.hf_args_file is not None:
        from .hf_args_file import args_file_config  # TrainingArguments from the args file the line names

        found = args_file_config(project, setup, bases)
        chosen = (*found, None) if found is not None else None
    if chosen is None and command is not None:
        # The launch line itself: --deepspeed_config x / --deepspeed x.json, PL_DEEPSPEED_CONFIG_PATH,
        # accelerate --deepspeed_config_file.
        if command.deepspeed_config_arg and (facts.uses_deepspeed or facts.hf_trainer or facts.hf_args_from_command_line):
            chosen = (command.deepspeed_config_arg, "the script's --deepspeed/--deepspeed_config option on the launch line",
                      None, command.deepspeed_config_arg_span)
        elif pl_table.DEEPSPEED_ENV_VAR in command.env and command.env[pl_table.DEEPSPEED_ENV_VAR].value:
            env = command.env[pl_table.DEEPSPEED_ENV_VAR]
            chosen = (env.value, f"${pl_table.DEEPSPEED_ENV_VAR} on the launch line", None, env.span)
            link.consumer = "lightning"
        elif command.accelerate is not None and command.accelerate.deepspeed_config_file:
            chosen = (command.accelerate.deepspeed_config_file, "accelerate launch --deepspeed_config_file", None, None)
            link.consumer = "accelerate"
        elif setup.accelerate is not None and not setup.accelerate.unknown and \
                isinstance(setup.accelerate.deepspeed.get("deepspeed_config_file"), str):
            chosen = (setup.accelerate.deepspeed["deepspeed_config_file"],
                      f"deepspeed_config_file in {setup.accelerate.config.path if setup.accelerate.config else 'accelerate'}",
                      None, None)
            link.consumer = "accelerate"
    if chosen is not None:
        written, how, ref_span, launch_span = chosen
        link.how, link.ref_span, link.launch_span = f"{how}: {written!r}", ref_span, launch_span
        link.ref_path = setup.script_path if ref_span is not None else None
        if _heredoc_config(setup, link, written, loader):  # (written just before the launch: what runs)
            setup.config = link
            return
        found = resolve_path(project, project.configs, written, bases)
        if found.found is not None:
            link.path = found.found
            link.value = project.configs[found.found].value
        elif found.real is None and loader is None and _dumped_config(project, setup, link, written, bases):
            pass  # (no such file in the tree: the project script that generates it says what it holds)
        elif found.real is not None and loader == "yaml":
            _yaml_config(project, setup, link, found)
        elif found.real is not None:
            setup.notes["config"] = f"{written!r} is {found.candidates[0]}, not a DeepSpeed config among the checked files"
        else:
            setup.notes["config"] = found.why()
        setup.config = link
        return
    if chosen is None and _accelerate_builds_config(setup):
        accelerate = setup.accelerate
        link.value, link.consumer = accelerate.deepspeed_config(), "accelerate"
        source = accelerate.config.path if accelerate.config is not None else "the accelerate launch flags"
        link.how = f"accelerate builds it from the deepspeed_config of {source}"
        link.ref_span = accelerate.span(("deepspeed_config",)) or accelerate.span(("distributed_type",))
        link.ref_path = accelerate.config.path if link.ref_span is not None else None
        setup.config = link
        return
    site = setup.lightning
    if site is not None:
        if site.strategy:
            built = pl_table.strategy_deepspeed_config(site.strategy, fabric=site.kind == "fabric")
            if built is not None:
                link.value, link.from_strategy = built, f"strategy={site.strategy!r}"
                link.how = f"Lightning builds it from strategy={site.strategy!r}"
                link.ref_span, link.ref_path = site.strategy_span, lightning_path(setup)
                link.consumer = "fabric" if site.kind == "fabric" else "lightning"
        elif site.strategy_kwargs is not None and site.config is None and site.strategy_kwargs_complete:
            link.value = pl_table.deepspeed_default_config(**site.strategy_kwargs)
            link.from_strategy = "DeepSpeedStrategy(...)"
            link.how = "Lightning builds it from DeepSpeedStrategy(...)"
            link.ref_span, link.ref_path = site.strategy_span, lightning_path(setup)
            link.consumer = "lightning" if site.kind == "trainer" else "fabric"
    setup.config = link


def _built_config(project: "Project", setup: TrainingSetup, ref: ConfigRef, link: ConfigLink) -> bool:
    """`config=get_ds_config(4)`: the dict the project function returns for these arguments (its
    literal defaults for the others), when its summary shows one; else the config stays unknown (a note)."""
    from .config_dicts import bind_arguments, chosen, given_options, resolve_leaves, substitute
    from .config_overlays import imported_values
    from .module_summary import NO_VALUE

    symbol = project.program.symbol(ref.origin or setup.script_path, ref.builder)
    function = symbol.function if symbol is not None else None
    template = function.returns_config if function is not None else None
    if template is None:
        setup.notes["config"] = f"{ref.what}: {ref.builder}(...) does not return a dict dslint can read"
        return False
    # (`hidden=HIDDEN`: a default the summary's literal reading left out, read with the template)
    defaults = {**function.defaults, **{name: value for name, value in template.defaults
                                        if function.defaults.get(name) == NO_VALUE}}
    bound = bind_arguments(function.params, function.kwonly, defaults, ref.arguments, dict(ref.keywords), NO_VALUE)
    if bound is None:
        setup.notes["config"] = f"{ref.what}: the call of {ref.builder}(...) does not bind its parameters"
        return False
    value, spans = chosen(template, substitute(template.value, bound), bound)
    from .option_defaults import option_passed

    args = script_args(setup.command)  # (`get_ds_config(args)`: an option's default unless the line passes it)
    link.value = given_options(resolve_leaves(value, imported_values(project.program, symbol.path)),
                               lambda options: option_passed(args, options), lambda options: _passed_word(args, options))
    link.how = f"{ref.what}: the dict {ref.builder}(...) returns ({symbol.path}:{function.row})"
    link.ref_span, link.ref_path = ref.span, ref.origin or setup.script_path
    link.key_spans, link.key_path = spans, symbol.path
    return True


def _code_config(how: str):
    """The reader of a config the project's code builds: by a function call ("built"), as an imported
    module constant ("imported"), in layers of files and literal changes ("layered")."""
    if how == "layered":
        from .config_overlays import layered_config

        return layered_config
    return _built_config if how == "built" else _imported_config


def _imported_path(project: "Project", setup: TrainingSetup, ref: ConfigRef) -> Optional[tuple]:
    """(path, how) when the imported constant a config reference names is a path string of its module."""
    if ref.overwritten:
        return None
    found = project.program.module_constant(setup.script_path, ref.builder, "value_constants")
    if found is None or not isinstance(found[2], str) or not found[2]:
        return None
    target, name, value = found
    return value, f"{ref.what}: {name} of {project.program.display.get(target, target)}"


def _imported_config(project: "Project", setup: TrainingSetup, ref: ConfigRef, link: ConfigLink) -> bool:
    """`config=DS_CONFIG` with `from conf import DS_CONFIG`: the dict that module binds the name to."""
    from .config_dicts import resolve_leaves, with_overwritten
    from .config_overlays import imported_values

    program = project.program
    # (through a package that re-exports it: `from .ds_configs import DS` in hf/__init__.py)
    found = program.module_constant(setup.script_path, ref.builder, "config_constants", exports=setup.summary.module)
    if found is not None:
        target, name, template = found
        path = program.display.get(target, target)
        link.value = with_overwritten(resolve_leaves(template.value, imported_values(program, target)),
                                      list(ref.overwritten))
        link.how = f"{ref.what}: {name} of {path}"
        link.ref_span, link.ref_path = ref.span, setup.script_path
        link.key_spans, link.key_path = dict(template.spans), path
        return True
    setup.notes["config"] = f"{ref.what}: {ref.builder}, imported, is no config dict of a project module dslint reads"
    return False


def config_bases(project: "Project", setup: TrainingSetup) -> list:
    """Where a config path of this setup may be relative to: the folders from which the launch line's
    script path names the script (the job's working directory), then the script's own folder."""
    script_dir = _abs(project, setup.script_path).parent
    script_display = os.path.dirname(setup.script_path) or "."
    if setup.launch_path is None or setup.command is None:
        root_display = str(project.root) if os.path.isabs(setup.script_path) else _root_display(project)
        return [(script_dir, script_display), (Path(project.root), root_display)]
    bases = _job_bases(project, setup.launch_path, setup.command)
    return bases + [(script_dir, script_display)] if all(b[0] != script_dir for b in bases) else bases


def _job_bases(project: "Project", launch_path: str, command) -> list:
    """The launch line's folders (_launch_bases) from which its script path names the script: the job
    runs in one of them, so the other paths of the line are relative to it too."""
    bases = _launch_bases(project, launch_path, command)
    found_from = script_link(project, launch_path, command).bases if command is not None and starts_a_script(command) \
        else ()
    return [base for base in bases if base[0] in found_from] or bases


def _accelerate_builds_config(setup: TrainingSetup) -> bool:
    """An Accelerator in the script whose DeepSpeed config accelerate builds from the launch's settings:
    Accelerator() makes DeepSpeedPlugin() from the ACCELERATE_DEEPSPEED_* variables the launcher
    exports, when the script passes no plugin and no config of its own."""
    accelerate, facts = setup.accelerate, setup.facts
    if accelerate is None or accelerate.unknown or setup.spawner_kind != "accelerate" or not facts.accelerate:
        return False
    if facts.hf_trainer or facts.config_refs or facts.deepspeed_inits:
        return False
    module = setup.summary.module
    if module is not None and any(name.rsplit(".", 1)[-1] == "DeepSpeedPlugin" for name in module.called):
        return False
    return accelerate.deepspeed_config() is not None


# DeepSpeedPlugin fields `accelerate launch` exports as ACCELERATE_* variables (utils/launch.py
# prepare_deepspeed_cmd_env), which __post_init__ reads for each field the script leaves None.
_PLUGIN_ENV_FIELDS = ("zero_stage", "gradient_accumulation_steps", "gradient_clipping", "offload_optimizer_device",
                      "offload_param_device", "zero3_save_16bit_model")
_PLUGIN_FIELDS = (*_PLUGIN_ENV_FIELDS, "offload_optimizer_nvme_path", "offload_param_nvme_path")


def _plugin_config(setup: TrainingSetup, ref: ConfigRef, link: ConfigLink) -> bool:
    """The config DeepSpeedPlugin(...) builds: the script's keywords win, the launch's exported settings
    fill the fields the script leaves out, the plugin's defaults the rest. A field the launch may set
    but does not show (no --config_file: accelerate's default config file) is present with an unknown
    value; a deepspeed_config_file the launch gives makes the plugin read that file (config unknown)."""
    from ..sources.yaml_configs import NOT_LITERAL, deepspeed_plugin_config
    from .config_dicts import NotLiteral

    link.consumer, link.ref_span, link.ref_path = "accelerate", ref.span, setup.script_path
    given = {name: value for name, value, _ in ref.keywords if value is not None}  # None: the plugin reads the env
    exported, rest_unknown = {}, False
    accelerate = setup.accelerate
    if setup.spawner_kind == "accelerate":
        if accelerate is None or accelerate.unknown:
            rest_unknown = True
        elif accelerate.distributed_type == "MULTI_CPU":
            setup.notes["config"] = "accelerate launch --cpu: the DeepSpeedPlugin is not used"
            return False
        elif accelerate.launcher == "deepspeed":
            if accelerate.deepspeed.get("deepspeed_config_file") is not None:
                setup.notes["config"] = "DeepSpeedPlugin(...) reads the launch's deepspeed_config_file"
                return False
            exported = {name: accelerate.deepspeed[name] for name in _PLUGIN_ENV_FIELDS if name in accelerate.deepspeed}
            rest_unknown = accelerate.config is None
        else:
            rest_unknown = accelerate.config is None
    else:
        command = setup.command
        rest_unknown = command is None or any(name.startswith("ACCELERATE_") for name in command.env)
    fields = {}
    for name in _PLUGIN_FIELDS:
        if name in given:
            value = given[name]
            fields[name] = NOT_LITERAL if isinstance(value, NotLiteral) else value
        elif name in exported:
            fields[name] = _from_environment(name, exported[name])
        elif name.endswith("nvme_path"):
            fields[name] = "none"  # not exported by the launcher: the plugin's default
        else:
            fields[name] = NOT_LITERAL if rest_unknown else None
    link.value = deepspeed_plugin_config(fields, unknown=lambda name: NotLiteral(f"DeepSpeedPlugin {name}"))
    link.plugin_spans = {name: span for name, _, span in ref.keywords}
    link.how = f"accelerate builds it from {ref.what} in {setup.script_path}"
    return True


def _from_environment(name: str, value: Any) -> Any:
    """A launch setting as the plugin reads it back from its ACCELERATE_* variable (a string)."""
    from ..sources.yaml_configs import NOT_LITERAL

    if value is NOT_LITERAL or value is None:
        return value
    text = str(value).strip().lower()
    if name == "zero_stage":
        return int(text) if text.isdigit() else NOT_LITERAL
    if name == "gradient_accumulation_steps":
        return int(text) if text.isdigit() else text
    if name == "gradient_clipping":
        try:
            return text if text == "auto" else float(text)
        except ValueError:
            return NOT_LITERAL
    if name == "zero3_save_16bit_model":
        return text == "true"
    return text


def _consumer(setup: TrainingSetup) -> str:
    facts = setup.facts
    if setup.lightning is not None and (setup.lightning.strategy_kwargs is not None or
                                        (setup.lightning.strategy or "").lower().startswith("deepspeed")):
        return "lightning" if setup.lightning.kind == "trainer" else "fabric"
    if facts.hf_trainer or facts.hf_args_from_command_line or any(r.consumer == "hf" for r in facts.config_refs):
        return "hf"
    if facts.accelerate or (setup.spawner_kind == "accelerate"):
        return "accelerate"
    return "deepspeed"


def script_args(command) -> list:
    return list(command.script_args) if command is not None else []


def option_value(args: list, options: tuple) -> Optional[tuple[str, Span]]:
    """The value of `--opt v` / `--opt=v` among the script's arguments (last one wins, like argparse)."""
    found = None
    for k, arg in enumerate(args):
        text = arg.value if arg.value is not None else arg.raw
        name, eq, attached = text.partition("=")
        if name not in options:
            continue
        if eq and arg.value is not None:
            found = (attached, arg.span)
        elif not eq and k + 1 < len(args) and args[k + 1].value is not None:
            found = (args[k + 1].value, args[k + 1].span)
    return found


# Where a setting of a DeepSpeed config that no file holds is written: the DeepSpeedStrategy
# (Python call or LightningCLI init_args) or the accelerate config file's deepspeed_config (or flag).
_STRATEGY_ARGUMENTS = {"stage": "stage", "offload_param": "offload_parameters",
                       "offload_optimizer": "offload_optimizer", "offload_optimizer.device": "offload_optimizer_device"}
_ACCELERATE_FIELDS = {"stage": "zero_stage", "offload_param": "offload_param_device",
                      "offload_optimizer": "offload_optimizer_device",
                      "offload_optimizer.device": "offload_optimizer_device",
                      "zero3_save_16bit_model": "zero3_save_16bit_model"}


def built_config_where(setup: TrainingSetup, setting: str) -> Optional[tuple[str, Span, str]]:
    """(path, span, name as written) of what sets `setting` ("stage", "offload_param",
    "offload_optimizer", "offload_optimizer.device", "zero3_save_16bit_model") of a config Lightning or accelerate builds;
    None when the setup's config is a file (or a dict written in the script)."""
    cfg = setup.config
    if cfg.path is not None or not isinstance(cfg.value, dict):
        return None
    if cfg.from_strategy and setup.lightning is not None:
        name = _STRATEGY_ARGUMENTS.get(setting)  # (no DeepSpeedStrategy argument for the others)
        if name is None:
            return None
        if setup.lightning_cli is not None:
            found = setup.lightning_cli.where("strategy", "init_args", name) or setup.lightning_cli.where("strategy")
            return (found[0], found[1], name) if found else None
        span = setup.lightning.strategy_span
        return (lightning_path(setup), span, name) if span is not None else None
    accelerate = setup.accelerate
    if cfg.plugin_spans is not None:
        name = _ACCELERATE_FIELDS[setting]
        if name in cfg.plugin_spans:
            return setup.script_path, cfg.plugin_spans[name], name
        if accelerate is None or name not in accelerate.deepspeed:
            return setup.script_path, cfg.ref_span, name  # the plugin's default
    if cfg.consumer == "accelerate" and accelerate is not None and (
            cfg.plugin_spans is not None or _accelerate_builds_config(setup)):
        name = _ACCELERATE_FIELDS[setting]
        span = accelerate.span(("deepspeed_config", name))
        if span is not None:
            return accelerate.config.path, span, name
        launcher = setup.command.launcher("accelerate") if setup.command is not None else None
        option = launcher.options.get(name) if launcher is not None else None
        if option is not None:
            return setup.launch_path, option.span, f"--{name}"
        span = accelerate.span(("deepspeed_config",)) or accelerate.span(("distributed_type",))
        return (accelerate.config.path, span, name) if span is not None else None
    return None


# -- LightningCLI ----------------------------------------------------------------------------------
# Lightning 2.6 pytorch/cli.py: LightningCLI(model_class, datamodule_class, ..., args=None, run=True)
# parses sys.argv (`args=None`) with jsonargparse; `-c/--config` files and `--trainer.*` options give
# the Trainer's arguments (sources/yaml_configs.py merges them the way jsonargparse does).

LIGHTNING_CLI = ("lightning.pytorch.cli.LightningCLI", "lightning.pytorch.utilities.cli.LightningCLI")
_CLI_PARAMETERS = ("model_class", "datamodule_class", "save_config_callback", "save_config_kwargs", "trainer_class",
                   "trainer_defaults", "seed_everything_default", "parser_kwargs", "subclass_mode_model",
                   "subclass_mode_data", "args", "run")
_CLI_DEFAULTS = ("trainer_defaults", "parser_kwargs")  # defaults (and default config files) the launch does not show
# Methods of a LightningCLI subclass that change how the arguments are read or the Trainer is made.
_CLI_OVERRIDES = ("parse_arguments", "init_parser", "setup_parser", "instantiate_classes", "instantiate_trainer",
                  "_instantiate_trainer")


@dataclass(frozen=True)
class LightningCliCall:
    """One `LightningCLI(...)` (or subclass) call of a module, as plain data for linking."""

    span: Span
    function: Optional[str]  # the module-level function that makes it; None at module level or in a method
    run: Optional[bool]  # run= (subcommands); None when not a literal
    reads_argv: bool  # parses the launch line's arguments the standard way (no args=, no parsing overrides)
    defaults: bool  # trainer_defaults= / parser_kwargs= given: keys no --config sets are unknown


@summary_extractor("lightning_cli")
def _lightning_cli_calls(facts) -> tuple:
    """Every LightningCLI made in a module (`LightningCLI(...)`, or a subclass of it defined there)."""
    if not facts.uses("lightning") and not facts.uses("pytorch_lightning"):
        return ()
    sites = [(site, False) for site in facts.calls_to(*LIGHTNING_CLI)]
    for name, node in facts.classes.items():
        if "." in name or not any(facts.resolve(base) in LIGHTNING_CLI for base in node.bases):
            continue
        overrides = any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in _CLI_OVERRIDES
                        for item in node.body)
        sites += [(site, overrides) for site in facts.method_calls(name)
                  if isinstance(site.node.func, ast.Name) and site.node.func.id == name]
    calls = []
    for site, overrides in sites:
        given = {kw.arg: kw.value for kw in site.node.keywords if kw.arg is not None}
        starred = site.has_star_kwargs or any(isinstance(a, ast.Starred) for a in site.node.args)
        for position, value in enumerate(site.node.args[:len(_CLI_PARAMETERS)]):
            given.setdefault(_CLI_PARAMETERS[position], value)
        args, run, function = given.get("args"), given.get("run"), site.ctx.function
        if run is None:
            run_value: Optional[bool] = True
        else:
            run_value = run.value if isinstance(run, ast.Constant) and isinstance(run.value, bool) else None
        argv = args is None or (isinstance(args, ast.Constant) and args.value is None)
        top_level = isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and site.ctx.class_ is None
        calls.append(LightningCliCall(
            span=facts.lines.span_of_node(site.node), function=function.name if top_level else None, run=run_value,
            reads_argv=argv and not starred and not overrides,
            defaults=starred or any(name in given for name in _CLI_DEFAULTS)))
    return tuple(calls)


@dataclass
class LightningCliConfig:
    """The Trainer arguments of a LightningCLI setup, and where each is written."""

    module: str  # display path of the module that makes the LightningCLI
    call: LightningCliCall
    trainer: yaml_configs.LightningTrainer

    def where(self, *key) -> Optional[tuple[str, Span]]:
        """(path, span) of the YAML key or launch option that gives `key` (("strategy", "init_args", "stage"))."""
        found = self.trainer.where.get(tuple(key))
        return found if found is not None and found[0] and found[1] is not None else None


def lightning_position(setup: TrainingSetup, *keys: str) -> tuple[str, Span]:
    """Where the setup's Lightning Trainer sets the first of `keys` that is written somewhere: the
    LightningCLI YAML (or launch option) that gives it, else the Trainer/Fabric call in the script."""
    cli = setup.lightning_cli
    if cli is None:
        return lightning_path(setup), setup.lightning.span
    for key in keys:
        found = cli.where(key)
        if found is not None:
            return found
    return cli.module, cli.call.span


def _lightning_cli_call(project: "Project", script: str) -> Optional[tuple[str, LightningCliCall]]:
    """The LightningCLI the launched script makes: in the script itself, or in a project function it calls."""
    any_cli = project.__dict__.get("_any_lightning_cli")
    if any_cli is None:  # most projects make none: one look at the summaries, not one per launch line
        any_cli = any(s.extra.get("lightning_cli") for s in project.scripts.values())
        project._any_lightning_cli = any_cli  # type: ignore[attr-defined]
    if not any_cli:
        return None
    summary = project.scripts.get(script)
    calls = summary.extra.get("lightning_cli") if summary is not None else None
    if calls:
        return script, calls[0]
    module = summary.module if summary is not None else None
    if module is None:
        return None
    called = set(module.called)
    program = project.program
    for ref in module.imports:  # `from pkg.cli import cli_main; cli_main()`, `import pkg.cli as c; c.cli_main()`
        targets = [(name, ref.module) for name, local in ref.names if local in called] if ref.names else [
            (name.split(".", 1)[1], ref.module) for name in called
            if ref.local and name.startswith(ref.local + ".") and name.count(".") == 1 and ref.local != ref.module]
        for name, dotted in targets:
            target = program.module_file(script, dotted, ref.level)
            path = program.display.get(target, target) if target is not None else None
            found = project.scripts.get(path) if path is not None else None
            for call in (found.extra.get("lightning_cli") or ()) if found is not None else ():
                if call.function == name:
                    return path, call
    return None


def _lightning_cli(project: "Project", setup: TrainingSetup) -> None:
    """A launched LightningCLI: the Trainer it makes comes from the launch line's --config files."""
    found = _lightning_cli_call(project, setup.script_path)
    if found is None:
        return
    module, call = found
    if not call.reads_argv or call.run is None:
        setup.notes["lightning_cli"] = f"the LightningCLI in {module} does not read the launch line the standard way"
        return
    from ..sources import yaml_configs

    args = yaml_configs.lightning_cli_args(setup.command.script_args, run=call.run)
    if args.unknown is None and not any(step[0] == "config" for step in args.steps):
        setup.notes["lightning_cli"] = "the launch line gives the LightningCLI no --config"
        return
    trainer = yaml_configs.lightning_trainer(
        args, lambda written: _launch_yaml(project, setup.launch_path, written, setup.command), setup.launch_path)
    if "*" in trainer.unknown:
        setup.notes["lightning_cli"] = trainer.unknown["*"]
        return
    setup.lightning_cli = cli = LightningCliConfig(module, call, trainer)
    setup.lightning = _cli_site(cli)


_MISSING = object()


def _cli_site(cli: LightningCliConfig) -> LightningSite:
    """The Trainer the LightningCLI makes, as the LightningSite a `Trainer(...)` call in Python gives."""
    values, unknown = cli.trainer.values, cli.trainer.unknown

    def given(key: str, default):
        if key in unknown:
            return _MISSING
        if key in values:
            return values[key]
        return _MISSING if cli.call.defaults else default

    devices, nodes, strategy = given("devices", "auto"), given("num_nodes", 1), given("strategy", None)
    strategy_name = strategy_class = kwargs = config = None
    complete = True
    strategy_where = cli.where("strategy")
    if isinstance(strategy, str):
        strategy_name = strategy
    elif isinstance(strategy, dict):
        strategy_class = strategy["class_path"].rsplit(".", 1)[-1]
        if strategy_class == "DeepSpeedStrategy":
            kwargs = {}
            for name, value in strategy["init_args"].items():
                if name == "config":
                    where = cli.where("strategy", "init_args", "config") or strategy_where
                    span = where[1] if where else cli.call.span
                    if isinstance(value, str):
                        config = ConfigRef("literal", "lightning", "DeepSpeedStrategy config", span, path=value)
                    elif isinstance(value, dict):
                        config = ConfigRef("dict", "lightning", "DeepSpeedStrategy config", span, value=value)
                    elif value is not None:
                        complete = False
                elif isinstance(value, (bool, int, float, str)) or value is None:
                    kwargs[name] = value
                else:
                    complete = False
    elif strategy is _MISSING:
        complete = False
    environment = None
    plugins = given("plugins", None)
    if plugins is _MISSING:
        environment = "unknown plugins"
    elif plugins is not None:
        for plugin in plugins if isinstance(plugins, list) else [plugins]:
            name = plugin.get("class_path") if isinstance(plugin, dict) else plugin if isinstance(plugin, str) else None
            if not isinstance(name, str):
                environment = "unknown plugins"
            elif name.rsplit(".", 1)[-1].endswith("Environment"):
                environment = name.rsplit(".", 1)[-1]
    return LightningSite(
        kind="trainer", span=cli.call.span,
        devices=None if devices is _MISSING else devices, devices_given="devices" in values,
        num_nodes=nodes if isinstance(nodes, int) and not isinstance(nodes, bool) else None,
        strategy=strategy_name, strategy_span=strategy_where[1] if strategy_where else None,
        strategy_class=strategy_class, strategy_kwargs=kwargs, strategy_kwargs_complete=complete,
        config=config, cluster_environment=environment)


def _lightning_cli_config_positions(setup: TrainingSetup) -> None:
    """A config Lightning builds from a LightningCLI strategy is written in the YAML, not in the script."""
    cli, link, site = setup.lightning_cli, setup.config, setup.lightning
    if link.ref_span is None or link.ref_path != setup.script_path or site is None:
        return
    if link.ref_span is site.strategy_span:
        where = cli.where("strategy")
    elif site.config is not None and link.ref_span is site.config.span:
        where = cli.where("strategy", "init_args", "config") or cli.where("strategy")
    else:
        return
    link.ref_path, link.ref_span = where if where is not None else (None, None)
    if link.from_strategy and where is not None:
        link.from_strategy = f"trainer.strategy in {where[0]}"
        link.how = f"Lightning builds it from {link.from_strategy}"


# -- showing -----------------------------------------------------------------------------------

def _show(value, note: str = "") -> str:
    text = "unknown" if value is None else str(value)
    return f"{text} ({note})" if note else text


def describe_setups(project: "Project", settings: Optional["Settings"] = None) -> str:
    """Human-readable description of every linked setup (`dslint check --show-setup`): each fact with
    where it comes from (file:line), each unknown fact with why."""
    setups = link_setups(project, settings)
    unlinked = getattr(project, "_unlinked", [])
    if not setups and not unlinked:
        return "No training setup found (no script that uses DeepSpeed, Lightning or a spawner, and no launch line)."
    out = []
    for setup in setups:
        lines = [f"Training setup: {setup.script_path}"]
        command = setup.command
        if command is not None:
            row = command.span.start.row
            lines.append(f"  launched by     {setup.launch_path}:{row} ({' -> '.join(lc.word for lc in command.launchers)})")
            found = script_link(project, setup.launch_path, command)
            where = _where(setup.launch_path, command.script_span) or f"{setup.launch_path}:{row}"
            cwd = f", after `cd {command.cwd.raw}` at {_where(setup.launch_path, command.cwd.span)}" \
                if getattr(command, "cwd", None) is not None else ""
            started = repr(command.script) if command.script else f"-m {command.module}"
            lines.append(f"  script          {started} at {where}, relative to "
                         f"{' or '.join(found.tried) or '/'}{cwd}")
        else:
            lines.append("  launched by     unknown (no launch file starts it)")
        lines.append(f"  nodes           {_show(setup.nodes, _count_source(project, setup, 'nnodes'))}")
        lines.append(f"  ranks per node  {_show(setup.procs_per_node, _count_source(project, setup, 'nproc_per_node'))}")
        lines.append(f"  world size      {_show(setup.world_size, _count_source(project, setup, 'world_size'))}")
        lines.append(f"  who spawns      {setup.spawner}")
        lines.append(f"  threads/rank    {_show(setup.threads_per_rank, setup.threads_source)}")
        lines.append(f"  core binding    {'yes' if setup.core_binding else 'no'}")
        cfg = setup.config
        if cfg.path or cfg.value is not None:
            built = "(built from a launch config)" if cfg.ref_path and cfg.ref_path != setup.script_path \
                and not cfg.ref_path.endswith(".py") else "(built in code)"
            if cfg.key_path is not None and cfg.key_path == setup.launch_path:
                built = f"(a heredoc of {cfg.key_path})"
            named = [w for w in (_where(setup.launch_path, cfg.launch_span), _where(cfg.ref_path, cfg.ref_span)) if w]
            at = f" at {', '.join(named)}" if named else ""
            lines.append(f"  config          {cfg.path or built} via {cfg.how}{at} [read by: {cfg.consumer}]")
        else:
            lines.append(f"  config          {_show(None, setup.notes.get('config', 'no config reference found'))}")
        lines.append(f"  optimizer       {_optimizer_text(setup)}")
        opt_dev, param_dev = setup.offload_devices(settings)
        pin = _pin_text(setup)
        lines.append(f"  offload         optimizer: {opt_dev}, params: {param_dev}{pin}")
        lines.append(f"  frameworks      {', '.join(setup.frameworks) or 'none'}")
        for fact in ("accelerate_config", "lightning_cli"):
            if fact in setup.notes:
                lines.append(f"  unknown         {setup.notes[fact]}")
        out.append("\n".join(lines))
    if unlinked:
        lines = ["Launch lines whose script stayed unknown (no setup is linked to them):"]
        for launch_path, command, found in unlinked:
            where = _where(launch_path, command.script_span) or f"{launch_path}:{command.span.start.row}"
            lines.append(f"  {where}  {found.why()}")
        out.append("\n".join(lines))
    return "\n\n".join(out)


def _where(path: Optional[str], span: Optional[Span]) -> Optional[str]:
    return f"{path}:{span.start.row}" if path is not None and span is not None else None


# Launcher options and #SBATCH directives that give a count, by the fact they give (for --show-setup).
_COUNT_OPTIONS = {
    "nnodes": ("nnodes", "num_nodes", "num_machines", "nodes", "N", "hostfile", "H"),
    "nproc_per_node": ("nproc_per_node", "nproc-per-node", "num_gpus", "include", "exclude", "num_processes",
                       "ntasks-per-node", "ntasks", "n", "np", "npernode", "devices", "gpus-per-node", "gres"),
}


def _count_source(project: "Project", setup: TrainingSetup, fact: str) -> str:
    """Where a count of the setup comes from: the launch options and #SBATCH lines that give it, the
    settings or the framework (setup.notes), or why it is unknown."""
    note = setup.notes.get(fact, "")
    if fact == "world_size":
        if setup.world_size is not None and not note and setup.nodes is not None and setup.procs_per_node is not None:
            return "nodes x ranks per node"
        return note
    command = setup.command
    if command is None or (note and "[tool.dslint]" in note) or (note and getattr(setup, "nodes" if fact == "nnodes"
                                                                              else "procs_per_node") is not None):
        return note
    keys = _COUNT_OPTIONS[fact]
    spawner = next((lc for lc in reversed(command.launchers) if lc.kind == setup.spawner_kind), None)
    groups = [[spawner] if spawner is not None else [], [lc for lc in command.launchers if lc is not spawner]]
    found: list = []
    for launchers in groups:  # the launcher that starts the ranks first; srun/mpirun options, then #SBATCH
        found = [f"{option.name}{'=' + option.value if option.value is not None else ''} at "
                 f"{_where(setup.launch_path, option.span)}"
                 for launcher in launchers for option in launcher.option_list if option.key in keys]
        if found:
            break
    launch = project.launches.get(setup.launch_path)
    sbatch = getattr(launch, "sbatch", None)
    srun = command.launcher("srun")
    component = sbatch.for_srun(srun) if sbatch is not None and srun is not None else None
    if not found and component is not None:
        found = [f"#SBATCH {d.name}{'=' + d.value if d.value is not None else ''} at {_where(setup.launch_path, d.span)}"
                 for d in component.all if d.key in keys]
    text = "; ".join(found)
    if not text and not note and getattr(setup, "nodes" if fact == "nnodes" else "procs_per_node") is not None:
        text = f"the default of {setup.launcher}"
    return f"{text}; {note}" if text and note else text or note


def _optimizer_text(setup: TrainingSetup) -> str:
    value = setup.config_value or {}
    optimizer = value.get("optimizer")
    client = setup.client_optimizer
    if client is not None:
        return f"client {client.qualname} ({client.where})"
    if setup.facts.cpu_optimizer:
        return "client DeepSpeedCPUAdam/CPU optimizer"
    if isinstance(optimizer, dict) and optimizer.get("type"):
        return f"DeepSpeed config optimizer {optimizer['type']!r}"
    return "unknown"


def _pin_text(setup: TrainingSetup) -> str:
    value = setup.config_value or {}
    zero = value.get("zero_optimization")
    if not isinstance(zero, dict):
        return ""
    pins = []
    for key in ("offload_optimizer", "offload_param"):
        block = zero.get(key)
        if isinstance(block, dict) and block.get("device") in ("cpu", "nvme"):
            pins.append(f"{key}.pin_memory={block.get('pin_memory', 'default')}")
    return f" ({', '.join(pins)})" if pins else ""


def launched_world_sizes(project: "Project", path: str) -> list:
    """The world sizes of the launch lines that start a program `path` runs in (None: unknown)."""
    from .program import norm_path

    entries = {norm_path(p) for p in project.program.programs_of(path)} or {norm_path(path)}
    by_script = project.__dict__.get("_launched_sizes")
    if by_script is None:  # one pass over the setups per project, not one per asking file
        by_script = project._launched_sizes = {}  # type: ignore[attr-defined]
        for setup in link_setups(project):
            if setup.launch_path is not None:
                by_script.setdefault(norm_path(setup.script_path), []).append(setup.world_size)
    return [size for entry in entries for size in by_script.get(entry, ())]


def own_gpu_per_process(project: "Project", path: str) -> bool:
    """Does every launch of the program `path` runs in start its processes as Slurm tasks that each get
    GPUs of their own (`srun` with `--gpus-per-task`, `--ntasks-per-gpu`, `--gpu-bind`, `--tres-per-task`,
    here or in #SBATCH)? Slurm then sets each task's CUDA_VISIBLE_DEVICES, so `cuda:0` is the task's own
    GPU. False when no launch line starts it."""
    from .program import norm_path

    entries = {norm_path(p) for p in project.program.programs_of(path)} or {norm_path(path)}
    setups = [s for s in link_setups(project) if s.launch_path is not None and norm_path(s.script_path) in entries]
    return bool(setups) and all(s.spawner_kind == "srun" and s.slurm_tasks_share_gpus is False
                                and s.command is not None and "CUDA_VISIBLE_DEVICES" not in s.command.env
                                for s in setups)


def single_process_launches(project: "Project", path: str) -> bool:
    """Every launch line that starts the program of `path` starts one process (and there is one): its
    world size is 1, or it is a plain `python script.py` of a program that starts no process itself (no
    mp.spawn, no Lightning with several or automatic devices, no multiprocessing, subprocess, ray...)."""
    from .program import norm_path

    entries = {norm_path(p) for p in project.program.programs_of(path)} or {norm_path(path)}
    setups = [s for s in link_setups(project) if s.launch_path is not None and norm_path(s.script_path) in entries]
    return bool(setups) and all(s.world_size == 1 or (s.world_size is None and _one_python_process(project, s))
                                for s in setups)


def _one_python_process(project: "Project", setup: TrainingSetup) -> bool:
    return setup.launcher == "python" and setup.spawner == "none" and setup.lightning is None and \
        not project.program.starts_processes_anywhere(setup.script_path)


def node_cores(setup: TrainingSetup, configured: Optional[int]) -> tuple:
    """(the cores a node's ranks share, where that comes from): `cpu-cores` in [tool.dslint], else
    the CPUs Slurm gives the one task a per-node launcher runs in (`--ntasks-per-node=1
    --cpus-per-task=C`: every rank it starts lives in that task's C CPUs); (None, "") if unknown."""
    if configured:
        return configured, "cpu-cores in [tool.dslint]"
    command = setup.command
    srun = command.srun if command is not None else None
    if srun is not None and setup.spawner_kind not in (None, "srun") and setup.slurm_tasks_per_node == 1 \
            and srun.cpus_per_task:
        return srun.cpus_per_task, f"--cpus-per-task={srun.cpus_per_task} of the one Slurm task per node"
    return None, ""


def launches_may_pass(project: Any, path: str, options: tuple) -> bool:
    """May a launch line that starts a program `path` runs in pass one of `options` to its script
    (given, or maybe inside an argument dslint cannot read)? False when no launch line starts it."""
    from .program import norm_path
    from .values import option_on_command_line

    if not options:
        return False
    entries = {norm_path(p) for p in project.program.programs_of(path)} or {norm_path(path)}
    for setup in link_setups(project):
        if setup.launch_path is None or norm_path(setup.script_path) not in entries:
            continue
        command = setup.command
        if command is None or option_on_command_line(command.script_args, options)[0] is not False:
            return True
    return False
