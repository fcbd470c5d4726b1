"""DSL701–DSL703: the launch line and the framework in the script must agree on who starts the
ranks, how many, and where they meet.

Lightning's cluster detection (accelerator_connector._choose_and_init_cluster_environment, in
this order): TorchElastic (torchrun), SLURM (srun, unless the job is named "bash" or
"interactive"), LSF, MPI (only with mpi4py installed and a world > 1), else
LightningEnvironment, which re-executes the script `devices - 1` times unless LOCAL_RANK is set.
"""
from __future__ import annotations

from typing import Iterator

from ..facts.link import TrainingSetup, _lightning_devices, lightning_joins_launcher, lightning_position, link_setups
from ..model import Severity
from ..sources.launch.launchers import LAUNCHERS, PER_NODE_KINDS, passed_local_rank, spawner, torch_spawner
from ..facts.program import is_test_module
from ..facts.spawn_args import port_of
from ..facts.spawn_targets import rankless_spawn
from .context import SetupContext
from .registry import decide_then, Report, decider, setup_rule, file_label, short


def _started(setup: TrainingSetup) -> str:
    if setup.procs_per_node is not None:
        return f"{setup.procs_per_node} processes per node"
    if setup.world_size is not None:
        return f"{setup.world_size} processes"
    return "processes"


def _product(setup: TrainingSetup, nprocs) -> str:
    outer = setup.procs_per_node or setup.world_size
    return f"{outer} x {nprocs} = {outer * nprocs}" if outer and nprocs else "launcher x spawn"


@setup_rule("DSL701", "double-launch", severity=Severity.ERROR)
def double_launch(ctx: SetupContext) -> Iterator[Report]:
    """An outside launcher starts the ranks and the script starts its own as well."""
    for setup in link_setups(ctx.project, ctx.settings):
        command = setup.command
        if command is None or setup.spawner_kind is None:
            continue
        many = (setup.procs_per_node or 0) > 1 or (setup.world_size or 0) > 1
        for spawn in setup.facts.spawns:
            if not many or spawn.conditional or rankless_spawn(ctx.project, setup.script_path, spawn.span):
                continue  # `if "LOCAL_RANK" not in os.environ: mp.spawn(...)` serves both launches
            yield Report(spawn.span,
                         f"{short(spawn.what.rsplit('.', 1)[-1], 16)}() here runs in each of the {_started(setup)} "
                         f"{short(setup.spawner_kind, 24)} starts ({_product(setup, spawn.nprocs)} processes in several "
                         "worlds); use one spawner",
                         path=setup.script_path, related=setup.launch_related("the outside launcher"))
        for spawn in setup.helper_spawns:
            if not many or spawn.conditional or rankless_spawn(ctx.project, spawn.helper_path, spawn.helper_span):
                continue
            yield Report(spawn.span,
                         f"{short(spawn.local, 24)}() calls {short(spawn.what.rsplit('.', 1)[-1], 16)}() in each of the "
                         f"{_started(setup)} {short(setup.spawner_kind, 24)} starts ({_product(setup, spawn.nprocs)} "
                         "processes in several worlds); use one spawner",
                         path=setup.script_path,
                         related=[(spawn.helper_path, spawn.helper_span, f"{short(spawn.local, 24)}() spawns here"),
                                  *setup.launch_related("the outside launcher")])
        yield from _launcher_per_srun_task(ctx, setup)
        site = setup.lightning
        if site is None:
            continue
        devices = _lightning_devices(site)
        if devices is None or devices < 2:
            continue
        environment = site.cluster_environment
        if environment == "LightningEnvironment" and setup.spawner_kind in ("srun", "mpirun"):
            why = "LightningEnvironment is forced"
        elif environment is None and lightning_joins_launcher(setup) is False:
            why = "it needs mpi4py to join MPI" if setup.spawner_kind == "mpirun" else "the job is named 'bash'"
        else:
            continue
        path, span = lightning_position(setup, "devices")
        yield Report(span,
                     f"this {site.kind.title()}(devices={short(repr(site.devices), 10)}) spawns {devices - 1} more "
                     f"processes in each {short(setup.spawner_kind, 24)} rank ({why}); use plain python or torchrun",
                     path=path, related=[*setup.lightning_related(), *setup.launch_related("the outside launcher")])


_PER_NODE_LAUNCHERS = PER_NODE_KINDS
_NODE_RANK_OPTIONS = ("node_rank", "machine_rank")


def _launcher_per_srun_task(ctx: SetupContext, setup: TrainingSetup) -> Iterator[Report]:
    """`srun torchrun` / `srun bash -c "accelerate launch ..."` with several tasks per node: srun starts the
    per-node launcher once per task, and each launcher starts the node's ranks."""
    command = setup.command
    tasks = setup.slurm_tasks_on_a_node  # (a sure lower bound with --ntasks and --nodes: enough for >= 2)
    if tasks is None or tasks < 2 or setup.spawner_kind not in _PER_NODE_LAUNCHERS:
        return
    kinds = [lc.kind for lc in command.launchers]
    if "srun" not in kinds or kinds.index("srun") > kinds.index(setup.spawner_kind):
        return
    spawner = command.launcher(setup.spawner_kind)
    per_node = command.nproc_per_node
    node_rank = next((o for o in spawner.option_list if o.key in _NODE_RANK_OPTIONS
                      and "SLURM_NODEID" in (o.raw_value or "")), None)
    if not (per_node is not None and per_node > 1) and node_rank is None:
        return  # one process per launcher (`--nnodes $SLURM_NTASKS --nproc_per_node 1`) is a valid layout
    srun = command.launcher("srun")
    exact = setup.slurm_tasks_per_node == tasks
    key = "ntasks-per-node" if exact else "ntasks"
    option = srun.options.get(key)
    launch = ctx.project.launches.get(setup.launch_path)
    sbatch = getattr(launch, "sbatch", None)
    component = sbatch.for_srun(srun) if sbatch is not None else None  # (a heterogeneous job's component)
    directive = getattr(component, key.replace("-", "_"), None)
    span = option.span if option is not None else directive.span if directive is not None else command.span
    ranks = f"{per_node} ranks" if per_node else "its own ranks"
    same = f", all as one {short(node_rank.name, 16)}" if node_rank else ""
    many = f"{tasks} Slurm tasks per node" if exact else f"at least {tasks} Slurm tasks on a node"
    yield Report(span,
                 f"{many} each run {short(spawner.word, 20)}, which starts {ranks}{same}, so "
                 "several worlds share the GPUs; use --ntasks-per-node=1",
                 path=setup.launch_path)


def _given(setup: TrainingSetup, key: str, value) -> str:
    """`devices=8` for a Trainer call; `trainer.devices: 8 (configs/fit.yaml)` for a LightningCLI."""
    cli = setup.lightning_cli
    if cli is None:
        return f"{key}={value!r}"
    found = cli.where(key)
    return f"trainer.{key}: {short(repr(value), 10)} ({file_label(found[0], 32) if found else 'the default'})"


@setup_rule("DSL702", "launcher-framework-mismatch", severity=Severity.ERROR)
def launcher_framework_mismatch(ctx: SetupContext) -> Iterator[Report]:
    """The launcher and the Lightning Trainer/Fabric disagree on processes per node or nodes."""
    for setup in link_setups(ctx.project, ctx.settings):
        site = setup.lightning
        command = setup.command
        if site is None or command is None or setup.spawner_kind is None or lightning_joins_launcher(setup) is not True:
            continue
        if site.cluster_environment is not None:
            continue
        devices = _lightning_devices(site)
        per_node = command.nproc_per_node if setup.spawner_kind != "srun" else (
            command.srun.ntasks_per_node if command.srun else None)
        nodes = command.nnodes if setup.spawner_kind != "srun" else (command.srun.nodes if command.srun else None)
        problems, keys = [], []
        if devices is not None and site.devices_given and per_node is not None and devices != per_node:
            problems.append(f"{_given(setup, 'devices', site.devices)} but the launcher starts {per_node} per node")
            keys.append("devices")
        if site.num_nodes is not None and nodes is not None and site.num_nodes != nodes:
            problems.append(f"{_given(setup, 'num_nodes', site.num_nodes)} but the launcher runs on {nodes} nodes")
            keys.append("num_nodes")
        if not problems:
            continue
        path, span = lightning_position(setup, *keys)
        consequence = ("Lightning raises ValueError at start-up"
                       if setup.spawner_kind in ("torchrun", "torch.distributed.launch", "srun") else
                       "the ranks hang at start-up")
        yield Report(span, f"{short('; '.join(problems), 96)}, so {consequence}; make them agree",
                     path=path, related=[*setup.lightning_related(), *setup.launch_related("the launcher")])


@setup_rule("DSL703", "fixed-rendezvous-port")
def fixed_rendezvous_port(ctx: SetupContext) -> Iterator[Report]:
    """A rendezvous port written into the script (or an sbatch job) that every job shares."""
    for path, summary in ctx.project.scripts.items():
        facts = summary.extra.get("setup")
        if facts is None or not summary.multiprocess or is_test_module(path):
            continue  # unit tests pin a distinct port per test on purpose (torchtitan's tests do)
        ports = [(p.span, p.port) for p in facts.ports]
        seen = {span for span, _ in ports} | set(facts.agreed_ports)
        for source in summary.extra.get("spawn_ports", ()):  # through a spawned worker, another module, an f-string
            port = port_of(ctx.project.program, path, source) if source.span not in seen else None
            if port is not None:
                ports.append((source.span, port))
                seen.add(source.span)
        for span, port in ports:
            yield Report(span,
                         f"rendezvous port {short(port, 12)} is fixed in the script, so a second job on the node "
                         "fails ('Address already in use'); let the launcher set MASTER_PORT", path=path)
    for path, launch in ctx.project.launches.items():
        sbatch = launch.sbatch
        if not sbatch.all or any(d.key == "exclusive" for d in sbatch.all):
            continue
        for command in launch.commands:
            if command.master_port is None:
                continue
            spawner = torch_spawner(command.launchers)
            if spawner is None:
                continue
            option = next((o for o in spawner.option_list if o.key in LAUNCHERS[spawner.kind].port_options), None)
            if option is None or (command.nnodes or 1) > 1:
                continue
            yield Report(option.span,
                         f"fixed rendezvous port {short(command.master_port, 12)} in a batch job without --exclusive, "
                         "so two jobs on one node collide; derive it from the job, e.g. "
                         "$((10000 + SLURM_JOB_ID % 50000))", path=path)


# Frameworks that find the Slurm task's local rank themselves (Lightning's SLURMEnvironment reads
# SLURM_LOCALID; deepspeed.init_distributed and Accelerate may discover it through MPI): the script's
# own LOCAL_RANK read is then not the whole story.
def _framework_finds_rank(setup: TrainingSetup) -> bool:
    facts = setup.facts
    return bool(facts.lightning or facts.accelerate or facts.hf_trainer or facts.deepspeed_inits)


@setup_rule("DSL704", "srun-task-reads-torchrun-env", severity=Severity.ERROR)
def srun_task_reads_torchrun_env(ctx: SetupContext) -> Iterator[Report]:
    """srun starts one task per GPU, and the script takes its GPU from LOCAL_RANK, which srun does not set."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        tasks = setup.slurm_tasks_on_a_node  # (a lower bound with --ntasks and --nodes: enough for >= 2)
        if not setup.rank_env_missing or tasks is None or tasks < 2 or not setup.slurm_tasks_share_gpus:
            continue
        if _framework_finds_rank(setup):
            continue
        many = f"all {tasks}" if setup.slurm_tasks_per_node == tasks else f"at least {tasks}"
        for path, index in setup.env_device_indexes:
            unset = [k for k in index.keys if k in setup.rank_env_missing and k not in setup.facts.env_sets]
            if index.unset_index is None or len(unset) != len(index.keys) or (path, index.read_span) in seen:
                continue
            seen.add((path, index.read_span))  # (a helper that several launched scripts call: once)
            names = "/".join(index.keys)
            yield Report(index.read_span,
                         f"srun sets SLURM_LOCALID, not {short(names, 24)}, so {many} tasks of a node select "
                         f"cuda:{index.unset_index}; read os.environ['SLURM_LOCALID'] or start the script with torchrun",
                         path=path, related=setup.launch_related("srun starts the tasks"))


@setup_rule("DSL705", "launcher-local-rank-unparsed", severity=Severity.ERROR)
def launcher_local_rank_unparsed(ctx: SetupContext) -> Iterator[Report]:
    """The launcher adds its local-rank option to the script's command line (`deepspeed`: `--local_rank=<i>`;
    `python -m torch.distributed.launch` without --use-env: `--local-rank=<i>` since PyTorch 2.0), and the
    script's own argparse parser does not take it: every rank exits at argument parsing."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        parsed, command = setup.facts.parsed_options, setup.command
        where = setup.script_path
        if parsed is None and command is not None and not setup.facts.parses_args:
            where, parsed = _helper_parser(ctx.project, setup) or (where, None)
        if parsed is None or command is None:
            continue
        launcher = spawner(command.launchers)
        word = _local_rank_word(ctx.project, command.launchers)
        if word is None or launcher.may_have_more_options or parsed.accepts(word):
            continue
        key = (where, word)
        if key in seen:
            continue
        seen.add(key)
        yield Report(parsed.span,
                     f"{launcher.kind} passes {word}=<i>, which this parser does not take, so every rank exits; "
                     f"add \"{word}\" to the parser's options", path=where,
                     related=setup.launch_related(f"{short(launcher.word, 40)} starts it"))


def _helper_parser(project, setup: TrainingSetup):
    """(module, ParsedOptions) of the one project function the script calls that parses the command line
    with a parser whose every option is in sight (`args = get_args()` of configs/arguments.py); None when
    none does, or several."""
    module = setup.summary.module if setup.summary is not None else None
    found = []
    for local in module.called if module is not None else ():
        symbol = project.program.symbol(setup.script_path, local)
        function = symbol.function if symbol is not None else None
        if function is not None and function.parsed_options is not None:
            found.append((project.program.display.get(symbol.path, symbol.path), function.parsed_options))
    return found[0] if len(found) == 1 else None


def _local_rank_word(project, launchers: list):
    """The one spelling the chain's launcher passes: torch.distributed.launch's `--local-rank` unless
    the project's dependency files keep PyTorch below 2.0 (run.py's `--local_rank` before that)."""
    words = passed_local_rank(launchers)
    if len(words) == 1:
        return words[0]
    if not words:
        return None
    newest = project.newest_allowed("torch")
    return "--local-rank" if newest is None or newest >= (2, 0) else "--local_rank"


@decider("lightning-hook-runs")
def _decide_hook_runs(finding, project, params):
    """Drop a finding in a removed Callback hook when every Lightning release that the dependency
    files nearest the script allow is at least the one that stopped calling it; else decide it as
    it would have been."""
    from pathlib import Path

    from ..facts.dependencies import oldest_allowed

    oldest = oldest_allowed(Path(project.root), "lightning", Path(finding.path).parent, project.note_input)
    if oldest is not None and oldest >= params["removed"]:
        return None
    return decide_then(finding, project, params["then"])
