"""DSL201–DSL205: the host side of a training setup — CPU threads, core binding, pinned memory,
DataLoader workers — for the ranks that share one node.

ZeRO-Offload runs the optimizer step on the CPU (DeepSpeedCPUAdam's `#pragma omp parallel for`),
so its speed is set by how many OpenMP threads each rank gets, and that depends on the
launcher: torchrun and accelerate export OMP_NUM_THREADS=1 when it is unset, the deepspeed
launcher leaves every rank free to use every core unless --bind_cores_to_rank, Lightning's own
launcher sets cores // processes. Measured numbers: research/gpu-probe.md (2 x H200, 32 cores) and
rules/DSL201.md, DSL202.md (messages stay one line; the numbers live in the documents).
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Iterator, Optional

from ..facts import instance_arguments  # noqa: F401 (its summary extractor: configs passed to factories)
from ..facts.bindings import semantic_model
from ..facts.keyword_splats import CallKeywords, call_keywords, module_constant, resolved
from ..facts.link import TrainingSetup, link_setups, node_cores
from ..facts.omegaconf_values import setup_read_value
from ..fixes import append_keyword, codemod_fixer, make_fix, node_at, with_import
from ..model import Applicability
from ..facts.program import norm_path
from ..facts.program_callers import MACHINE_DEFAULT, calls_leaving_default, instance_field_default
from ..facts.values import UNKNOWN, constant, option_on_command_line, option_value_word
from ..sources.launch.launchers import LAUNCHERS, OMP_ONE_IF_SEVERAL, OMP_THREADS_OPTION
from .context import PythonContext, SetupContext
from .config_schema import effective
from .registry import Report, decider, program_check, python_rule, setup_rule, file_label, short


def cpu_optimizer_work(setup: TrainingSetup, settings) -> Optional[str]:
    """Why this setup runs optimizer work on the CPU (a few words for a message), or None.

    The offload is read as DeepSpeed reads it (dsconfig_schema.effective_config): the legacy
    `"cpu_offload": true` offloads the optimizer too, as DSL605 says."""
    config = setup.config.path or setup.config.from_strategy or setup.config.ref_path
    read = effective(setup.config_value, settings)
    if read is not None and read.zero_stage in (1, 2, 3) and read.offload_optimizer_device in ("cpu", "nvme"):
        return f"ZeRO-Offload ({file_label(config, 24)})" if config else "ZeRO-Offload"
    if setup.facts.cpu_optimizer:
        return f"a DeepSpeed CPU optimizer ({file_label(setup.script_path, 24)})"
    return None


def _threads_set_in_script(setup: TrainingSetup) -> bool:
    return "OMP_NUM_THREADS" in setup.facts.env_sets or setup.facts.sets_num_threads


def _threads_set_in_program(ctx: SetupContext, setup: TrainingSetup) -> bool:
    """The script, or a project function it calls (`configure_threads()` in utils), sets the threads."""
    return _threads_set_in_script(setup) or ctx.project.program.threads_set_by(setup.script_path) is not None


@setup_rule("DSL201", "cpu-offload-oversubscribed", fix=Applicability.UNSAFE)
def cpu_offload_oversubscribed(ctx: SetupContext) -> Iterator[Report]:
    """Several ranks per node under the deepspeed launcher with no core binding and no thread
    limit: every rank's CPU Adam starts an OpenMP team as large as the machine."""
    for setup in link_setups(ctx.project, ctx.settings):
        command = setup.command
        if command is None or setup.spawner_kind != "deepspeed" or command.bind_cores_to_rank:
            continue
        if command.omp_num_threads_set or _threads_set_in_script(setup) or not (setup.procs_per_node or 0) > 1:
            continue
        work = cpu_optimizer_work(setup, ctx.settings)
        if work is None:
            continue
        launcher = command.launcher("deepspeed")
        original = ctx.project.texts.get(setup.launch_path, "")[launcher.span.start_offset:launcher.span.end_offset]
        fix = make_fix("edits", "add --bind_cores_to_rank (numactl per rank, OMP_NUM_THREADS = cores per rank)",
                       Applicability.UNSAFE,
                       edits=((launcher.span.start_offset, launcher.span.end_offset, original + " --bind_cores_to_rank",
                               original),))
        yield Report(launcher.span,
                     f"{work} with {setup.procs_per_node} ranks per node, each using every core (no "
                     "--bind_cores_to_rank, no OMP_NUM_THREADS); add --bind_cores_to_rank",
                     path=setup.launch_path, fix=fix)
    yield from _threads_times_ranks_above_cores(ctx)


def _threads_times_ranks_above_cores(ctx: SetupContext) -> Iterator[Report]:
    """An OMP_NUM_THREADS the launch line sets (`export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK`) that,
    in each of the ranks of a node, asks for more threads than the node's cores (known from
    `cpu-cores` or the Slurm task's CPUs)."""
    for setup in link_setups(ctx.project, ctx.settings):
        command = setup.command
        env = command.env.get("OMP_NUM_THREADS") if command is not None else None
        threads = command.omp_num_threads if command is not None else None
        n = setup.procs_per_node
        if env is None or not (threads or "").isdigit() or not (n or 0) > 1 or _threads_set_in_script(setup):
            continue
        cores, _ = node_cores(setup, ctx.settings.cpu_cores)
        if not cores or int(threads) * n <= cores:
            continue
        work = cpu_optimizer_work(setup, ctx.settings)
        if work is None:
            continue
        yield Report(env.span,
                     f"{work}: {n} ranks x OMP_NUM_THREADS={short(threads, 6)} is {int(threads) * n} threads for "
                     f"{cores} cores; give each rank {max(1, cores // n)} threads",
                     path=setup.launch_path)


def _shell_fix_allowed(path: Optional[str]) -> bool:
    name = (path or "").rsplit("/", 1)[-1]
    return not (name in ("Makefile", "makefile", "GNUmakefile") or name.endswith(".mk"))


# The launchers that may export OMP_NUM_THREADS=1 to every rank when the launch leaves it unset.
ONE_THREAD_LAUNCHERS = frozenset(kind for kind, spec in LAUNCHERS.items()
                                 if spec.omp_default in (OMP_ONE_IF_SEVERAL, OMP_THREADS_OPTION))


@setup_rule("DSL202", "cpu-offload-starved", fix=Applicability.UNSAFE)
def cpu_offload_starved(ctx: SetupContext) -> Iterator[Report]:
    """torchrun / accelerate launch export OMP_NUM_THREADS=1 to every rank when it is unset: the
    CPU optimizer of each rank then runs on one core."""
    for setup in link_setups(ctx.project, ctx.settings):
        command = setup.command
        if command is None or setup.spawner_kind not in ONE_THREAD_LAUNCHERS:
            continue
        accelerate = setup.accelerate if setup.spawner_kind == "accelerate" else None
        if accelerate is not None and not accelerate.unknown:
            # accelerate's own model: its DeepSpeed launcher runs torchrun (which sets 1), the others export
            # --num_cpu_threads_per_process (default: the inherited value, else 1).
            one_thread = accelerate.omp_by_launcher and accelerate.omp_num_threads == "1"
        else:
            one_thread = not command.omp_num_threads_set and command.omp_num_threads_by_launcher == "1"
        if not one_thread or _threads_set_in_program(ctx, setup):
            continue
        n = setup.procs_per_node
        if not (n or 0) > 1:
            continue
        work = cpu_optimizer_work(setup, ctx.settings)
        if work is None:
            continue
        cores = ctx.settings.cpu_cores
        value = str(max(1, cores // n)) if cores else f"$(( $(nproc) / {n} ))"
        fix = None
        if _shell_fix_allowed(setup.launch_path):
            start = command.span.start_offset
            fix = make_fix("edits", f"prefix the launch line with OMP_NUM_THREADS={value}", Applicability.UNSAFE,
                           edits=((start, start, f"OMP_NUM_THREADS={value} ", ""),))
        launcher = command.launcher(setup.spawner_kind) or command.launchers[0]
        related = []
        if accelerate is not None and accelerate.config is not None:
            span = accelerate.span(("deepspeed_config", "offload_optimizer_device"))
            if span is not None:
                related.append((accelerate.config.path, span, "the optimizer offload"))
        yield Report(launcher.span,
                     f"{work}: {setup.spawner_kind} sets OMP_NUM_THREADS=1 in its {n} ranks per node, starving the CPU "
                     "optimizer; set it to the cores per rank",
                     path=setup.launch_path, fix=fix, related=related)
    yield from _explicit_one_thread(ctx)


def _explicit_one_thread(ctx: SetupContext) -> Iterator[Report]:
    """`OMP_NUM_THREADS=1` written on the launch line (`exec env OMP_NUM_THREADS=1 torchrun ...`,
    an exported 1) pins every rank's CPU optimizer to one core, whatever the launcher does."""
    for setup in link_setups(ctx.project, ctx.settings):
        command = setup.command
        env = command.env.get("OMP_NUM_THREADS") if command is not None else None
        if command is None or command.omp_num_threads != "1" or env is None or env.from_default \
                or _threads_set_in_program(ctx, setup):
            continue
        n = setup.procs_per_node
        cores = ctx.settings.cpu_cores
        if not (n or 0) > 1 or (cores and cores // n <= 1):
            continue  # one core per rank is all the node has
        work = cpu_optimizer_work(setup, ctx.settings)
        if work is None:
            continue
        yield Report(env.span,
                     f"{work}: OMP_NUM_THREADS=1 here starves the CPU optimizer of its {n} ranks per node; give each "
                     "rank its share of the cores", path=setup.launch_path)


# -- Lightning offload strategies leave pin_memory off ----------------------------------------------

_OFFLOAD_STRINGS = {
    "deepspeed_stage_1_offload": (1, False),
    "deepspeed_stage_2_offload": (2, False),
    "deepspeed_stage_3_offload": (3, True),
}
_STRATEGY_CLASSES = ("lightning.pytorch.strategies.DeepSpeedStrategy", "lightning.fabric.strategies.DeepSpeedStrategy")
_TRAINERS = ("lightning.pytorch.Trainer", "lightning.fabric.Fabric")


def _strategy_module(ctx: PythonContext, site_qualname: str) -> str:
    """Where to import DeepSpeedStrategy from, matching how the script imports Lightning."""
    fabric = site_qualname.startswith("lightning.fabric")
    if ctx.facts.uses("pytorch_lightning") and not fabric:
        return "pytorch_lightning.strategies"
    if ctx.facts.uses("lightning_fabric") and fabric:
        return "lightning_fabric.strategies"
    return "lightning.fabric.strategies" if fabric else "lightning.pytorch.strategies"


@python_rule("DSL203", "offload-without-pinned-memory", fix=Applicability.UNSAFE)
def offload_without_pinned_memory(ctx: PythonContext) -> Iterator[Report]:
    """Lightning's `*_offload` strategy strings and `DeepSpeedStrategy(offload_...=True)` leave
    `pin_memory=False`: every offload copy goes through pageable memory."""
    model = semantic_model(ctx.facts)
    for site in _resolved_calls(ctx.facts, model, _TRAINERS):
        strategy = site.keyword("strategy")
        string = model.value_of(strategy) if strategy is not None else None
        value = string.value.lower() if isinstance(string, ast.Constant) and isinstance(string.value, str) else None
        if value not in _OFFLOAD_STRINGS:
            continue
        if value == "deepspeed_stage_1_offload" and not site.qualname.startswith("lightning.fabric"):
            continue  # not a Trainer strategy: Lightning raises on the name itself
        stage, params = _OFFLOAD_STRINGS[value]
        fix = None
        if string is strategy or _only_use(model, strategy, string):
            fix = make_fix("explicit-deepspeed-strategy",
                           f"use DeepSpeedStrategy(stage={stage}, offload_optimizer=True, "
                           f"{'offload_parameters=True, ' if params else ''}pin_memory=True)",
                           Applicability.UNSAFE, row=string.lineno, column=string.col_offset + 1,
                           stage=stage, params=params, module=_strategy_module(ctx, site.qualname))
        yield Report(strategy, f"strategy={short(repr(string.value), 30)} offloads without pinned memory, so offload "
                     "copies are slow; use DeepSpeedStrategy(..., pin_memory=True)", fix=fix)
    for site in _resolved_calls(ctx.facts, model, _STRATEGY_CLASSES):
        unpinned, needs = _offloads_unpinned(model, site.node), None
        if not unpinned and not site.node.args and any(kw.arg is None for kw in site.node.keywords):
            # `DeepSpeedStrategy(**STRATEGY_KW)`: the dict's keys are keywords (one of another module: decided later)
            splats = call_keywords(model, site.node, module_constant(model), UNKNOWN, ctx.facts.lines.span_of_node)
            unpinned = splats.pending or _splats_unpinned(splats)
            needs = ("strategy-splats-unpinned", (("splats", splats),)) if splats.pending else None
        if not unpinned:
            continue
        fix = make_fix("add-keyword", "add pin_memory=True", Applicability.UNSAFE,
                       row=site.node.lineno, column=site.node.col_offset + 1, keyword="pin_memory", value="True")
        yield Report(site.node, "DeepSpeedStrategy offloads with pin_memory=False (its default), so offload copies "
                     "are slow; add pin_memory=True unless host RAM is tight", fix=fix, needs=needs)


def _resolved_calls(facts, model, qualnames: tuple) -> Iterator:
    """Calls of these qualified names whose callee resolves there through the bindings at the call."""
    return (site for site in facts.calls_to(*qualnames) if model.resolve(site.node.func) == site.qualname)


def _only_use(model, name: ast.expr, value: ast.expr) -> bool:
    """`name` is bound straight to `value` and read nowhere else: the value can be rewritten in place."""
    binding = model.binding_of(name) if isinstance(name, ast.Name) else None
    return binding is not None and binding.value is value and model.uses_of(binding) == [name]


def _offloads_unpinned(model, call: ast.Call) -> bool:
    """`DeepSpeedStrategy(offload_optimizer=True)` (values through bindings) with no `pin_memory`,
    `config` or `**kwargs` that could set it."""
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if None in keywords or call.args or "config" in keywords or "pin_memory" in keywords:
        return False
    return any(constant(model, keywords.get(k)) is True for k in ("offload_optimizer", "offload_parameters"))


def _splats_unpinned(splats: CallKeywords) -> bool:
    """The keywords (with their `**` dicts) offload and set neither pin_memory nor config, and no key is unseen."""
    values, _, is_open = splats.merged()
    return not is_open and "config" not in values and "pin_memory" not in values and \
        any(values.get(k) is True for k in ("offload_optimizer", "offload_parameters"))


@decider("strategy-splats-unpinned")
def _decide_splats_unpinned(finding, project, params):
    """`DeepSpeedStrategy(**STRATEGY_KW)` with `from conf import STRATEGY_KW`: keep it when that dict offloads."""
    return finding if _splats_unpinned(resolved(project.program, norm_path(finding.path), params["splats"])) else None


@program_check("DSL203")
def offload_without_pinned_memory_in_cli_yaml(ctx: SetupContext) -> Iterator[Report]:
    """The same for the Trainer a LightningCLI makes from its YAML (`strategy: deepspeed_stage_2_offload`, or
    a DeepSpeedStrategy class_path whose init_args offload with no pin_memory): reported in the YAML."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        cli, site = setup.lightning_cli, setup.lightning
        if cli is None or site is None:
            continue
        name = (site.strategy or "").lower()
        if name in _OFFLOAD_STRINGS and name != "deepspeed_stage_1_offload":  # (stage 1 is no Trainer strategy)
            found, message = cli.where("strategy"), (
                f"strategy: {short(site.strategy, 30)} offloads without pinned memory, so offload copies are slow; use "
                "class_path DeepSpeedStrategy with init_args pin_memory: true")
        elif site.strategy_class == "DeepSpeedStrategy" and site.strategy_kwargs_complete and site.config is None \
                and "pin_memory" not in (site.strategy_kwargs or {}) \
                and any((site.strategy_kwargs or {}).get(k) is True for k in ("offload_optimizer", "offload_parameters")):
            key = next(k for k in ("offload_optimizer", "offload_parameters") if site.strategy_kwargs.get(k) is True)
            found, message = cli.where("strategy", "init_args", key) or cli.where("strategy"), (
                "DeepSpeedStrategy offloads with pin_memory false (its default), so offload copies are slow; add "
                "pin_memory: true to its init_args unless host RAM is tight")
        else:
            continue
        if found is None or (found[0], found[1].start_offset) in seen:
            continue
        seen.add((found[0], found[1].start_offset))
        yield Report(found[1], message, path=found[0], related=setup.launch_related("starts the LightningCLI"))


@codemod_fixer("add-keyword")
def _add_keyword(module, positions, params):
    import libcst as cst

    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None or any(a.keyword is not None and a.keyword.value == params["keyword"] for a in call.args):
        return None
    return module.deep_replace(call, append_keyword(call, params["keyword"], cst.parse_expression(params["value"])))


@codemod_fixer("explicit-deepspeed-strategy")
def _explicit_deepspeed_strategy(module, positions, params):
    import libcst as cst

    string = node_at(positions, cst.SimpleString, params["row"], params["column"])
    if string is None:
        return None
    parts = [f"stage={params['stage']}", "offload_optimizer=True"]
    if params["params"]:
        parts.append("offload_parameters=True")
    parts.append("pin_memory=True")
    new = cst.parse_expression(f"DeepSpeedStrategy({', '.join(parts)})")
    new_module = module.deep_replace(string, new)
    return with_import(new_module, params["module"], "DeepSpeedStrategy")


# -- DataLoader workers per node ---------------------------------------------------------------------

@setup_rule("DSL204", "loader-workers-exceed-cores")
def loader_workers_exceed_cores(ctx: SetupContext) -> Iterator[Report]:
    """DataLoader workers are per rank: workers x ranks per node above the node's cores."""
    most: dict = {}  # one report per num_workers value: the launch with the most ranks per node
    for setup in link_setups(ctx.project, ctx.settings):
        n = setup.procs_per_node
        if not (n or 0) > 1:
            continue
        cores, _ = node_cores(setup, ctx.settings.cpu_cores)
        for workers, where in _program_loader_workers(ctx.project, setup):
            value = workers.value
            if value is None and workers.config_read is not None and where == setup.script_path:
                read = setup_read_value(ctx.project, setup, workers.config_read)
                value = read if isinstance(read, int) and not isinstance(read, bool) else None
            if value is None and workers.class_default is not None:
                value = _class_default(ctx.project, where, workers)
                if value == MACHINE_DEFAULT:
                    value, workers = None, dataclasses.replace(workers, per_machine=True)
            how = ""
            if workers.unless_options:
                value, how = _launch_worker_count(setup, workers, value)
                args = setup.command.script_args if setup.command is not None else []
                if workers.per_machine and option_on_command_line(args, workers.unless_options)[0] is not False:
                    continue  # the CPU count is a command-line default: the launch line passes (or may pass) its own
            key = (where, workers.span.start_offset)
            if key not in most or most[key][1] < n:
                most[key] = (workers, n, where, cores, value, how)
        trainer = _hf_trainer_workers(setup)
        if trainer is not None and (setup.launch_path, trainer.span.start_offset) not in most:
            most[(setup.launch_path, trainer.span.start_offset)] = (
                trainer, n, setup.launch_path, cores, trainer.value, " (the HF Trainer's --dataloader_num_workers)")
    for workers, n, script, cores, value, how in most.values():
        if workers.per_machine:
            yield Report(workers.span,
                         f"num_workers follows the machine's CPU count{how} in each of {n} ranks per node; size it per "
                         f"rank: len(os.sched_getaffinity(0)) // {n} - 1", path=script)
        elif cores and value is not None and value * n > cores:
            yield Report(workers.span,
                         f"num_workers={value}{how} in each of {n} ranks per node is {value * n} workers for {cores} "
                         f"cores; use at most {max(1, cores // n - 1)} per rank", path=script)


def _program_loader_workers(project, setup: TrainingSetup) -> Iterator[tuple]:
    """(LoaderWorkers, its module) of the loaders the launched program builds: the script's own, and those
    a factory of an imported module builds with a count of its own (`DataLoader(..., num_workers=
    os.cpu_count())` in data/factory.py) where the script's program runs that function."""
    from ..facts.program_reach import reaching_entries
    from ..facts.script_setup import ScriptSetupFacts

    yield from ((w, setup.script_path) for w in setup.facts.loader_workers)
    script = norm_path(setup.script_path)
    program = project.program
    if not program.programs_of(script):
        return
    for module in sorted(program.closure(script) - {script}):
        summary = project.scripts.get(module)
        facts = summary.extra.get("setup") if summary is not None else None
        for workers in facts.loader_workers if isinstance(facts, ScriptSetupFacts) else ():
            if workers.param_field is not None:
                workers = _passed_config_workers(project, module, workers)
            if workers is None or not workers.fixed or workers.unless_options:
                continue
            if workers.unless_callers_pass and not calls_leaving_default(program, module, workers.unless_callers_pass,
                                                                         None, "num_workers"):
                continue  # (a caller in another module may pass its own count, or none calls it)
            entries = reaching_entries(project, module, workers.scope) if workers.scope else None
            if workers.scope is None or entries is None or script not in entries:
                continue  # (module level, nested or unknown: who runs it is not shown)
            yield workers, module


_HF_WORKERS_OPTIONS = ("--dataloader_num_workers", "--dataloader-num-workers")


def _hf_trainer_workers(setup: TrainingSetup):
    """The HF Trainer builds its DataLoaders with `num_workers=args.dataloader_num_workers` in every rank: the
    count a launch line gives a script whose TrainingArguments come from the command line (HfArgumentParser),
    as LoaderWorkers at that word; None otherwise."""
    from ..facts.script_setup import LoaderWorkers

    facts, command = setup.facts, setup.command
    if not facts.hf_trainer or not facts.hf_args_from_command_line or command is None:
        return None
    found = option_value_word(command.script_args, _HF_WORKERS_OPTIONS)
    if found is None or not (found[1] or "").isdigit():
        return None
    return LoaderWorkers(found[0].span, int(found[1]), False, fixed=True)


def _passed_config_workers(project, module: str, workers):
    """`num_workers=cfg.workers` in a factory whose every caller passes a fresh config instance that
    keeps the field's default: the count that default gives (an int, or the machine's CPU count)."""
    default = instance_field_default(project, module, *workers.param_field)
    if default is None:
        return None
    per_machine = default == MACHINE_DEFAULT
    return dataclasses.replace(workers, value=None if per_machine else default, per_machine=per_machine, fixed=True)


def _launch_worker_count(setup, workers, default: Optional[int]) -> tuple[Optional[int], str]:
    """(the worker count, where it comes from): what a launch line gives a command-line option
    (`--num-workers 4`), its default when the line passes none; None when it may pass one dslint
    cannot read (`"$@"`)."""
    args = setup.command.script_args if setup.command is not None else []
    options = workers.unless_options
    given, text = option_on_command_line(args, options)
    if given is False:
        return default, f" (the default of {short(' / '.join(options), 30)})"
    try:
        return (int(text), f" ({options[0]} on the launch line)") if given else (None, "")
    except (TypeError, ValueError):
        return None, ""


def _class_default(project, script: str, workers):
    """`num_workers=cfg.num_workers` whose config class (another module's) defaults it to an int (or to
    the machine's CPU count: MACHINE_DEFAULT)."""
    if workers.class_default is None:
        return None
    value, symbol = project.program.field_default(script, *workers.class_default)
    if symbol is not None and workers.class_default[1] in symbol.klass.machine_fields:
        return MACHINE_DEFAULT
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@setup_rule("DSL205", "bind-cores-ignored-multinode")
def bind_cores_ignored_multinode(ctx: SetupContext) -> Iterator[Report]:
    """deepspeed --bind_cores_to_rank on several nodes: the PDSH/OpenMPI/MPICH/MVAPICH/Slurm
    runners do not forward it (only the Intel MPI runner binds)."""
    for launch_path, launch in ctx.project.launches.items():
        for command in launch.commands:
            launcher = command.launcher("deepspeed")
            if launcher is None or "bind_cores_to_rank" not in launcher.options or "no_ssh" in launcher.options:
                continue  # (--no_ssh: each node runs the local launcher, which binds: runner.py multi_node_exec)
            runner = launcher.options.get("launcher")
            if runner is not None and (runner.value or "").lower() == "impi":
                continue
            multinode = (command.nnodes or 0) > 1 or ("hostfile" in launcher.options and command.nnodes != 1)
            if not multinode:
                continue
            option = launcher.options["bind_cores_to_rank"]
            runner_name = short(runner.value if runner else "pdsh", 12)
            yield Report(option.name_span,
                         f"the {runner_name} runner does not pass --bind_cores_to_rank to other nodes, so ranks run "
                         "unbound; set OMP_NUM_THREADS per node (e.g. in .deepspeed_env)",
                         path=launch_path)
