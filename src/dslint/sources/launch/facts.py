"""Facts a launch command implies, computed the way each launcher computes them.

Unknown stays None, with a reason in `command.reasons[fact]`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from . import launchers as table
from .model import (
    AccelerateFacts,
    DeepSpeedFacts,
    LaunchCommand,
    UNKNOWN_OPTIONS,
    LaunchOption,
    Launcher,
    MpirunFacts,
    SbatchDirectives,
    SrunFacts,
)
from .options import sub_span
from .launchers import LAUNCHERS, SCRIPT_CONFIG_OPTIONS, wraps_torchrun


def _int(value: Optional[str]) -> Optional[int]:
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() else None


def _option_value(launcher: Launcher, key: str) -> tuple[bool, Optional[str]]:
    """(given, value): given with an unknown value where words dslint cannot read may set it."""
    if launcher.may_reset(key):
        return True, None
    option = launcher.options.get(key)
    return (option is not None, option.value if option else None)


def _given(launcher: Launcher, key: str) -> Optional[LaunchOption]:
    """The option as the launcher ends up with it; one of unknown value where words dslint cannot read
    (`$DIST_ARGS`) come after the last one given, or where none is given."""
    if not launcher.may_reset(key):
        return launcher.options.get(key)
    unread = [o for o in launcher.option_list if o.key == UNKNOWN_OPTIONS][-1]
    return LaunchOption(unread.name, key, None, unread.name, False, unread.span, unread.span, unread.span,
                        known=False)


def _unread_reason(launcher: Launcher, key: str) -> str:
    unread = [o.name for o in launcher.option_list if o.key == UNKNOWN_OPTIONS]
    return f"{launcher.word} --{key} may be set by {unread[-1]}, which dslint cannot read"


def derive_facts(command: LaunchCommand, sbatch: SbatchDirectives) -> None:
    """Fill the derived facts of a parsed command (in place)."""
    _derive_omp(command)
    _derive_script_config(command)
    for launcher in command.launchers:
        if launcher.kind == "srun":
            component = sbatch.for_srun(launcher)  # (a heterogeneous job: the component it runs in)
            command.srun = _srun_facts(launcher, component) if component is not None else SrunFacts()
        elif launcher.kind == "mpirun":
            command.mpirun = _mpirun_facts(launcher)
    spawner = table.torch_spawner(command.launchers)
    if spawner is None:
        _derive_from_scheduler(command)
    else:
        _DERIVE[spawner.kind](command, spawner)
    _derive_launcher_omp(command, spawner)


# -- environment ---------------------------------------------------------------------------

def _derive_omp(command: LaunchCommand) -> None:
    env = command.env.get("OMP_NUM_THREADS")
    if env is not None and env.source in ("inline", "export"):
        command.omp_num_threads_set = True
        command.omp_num_threads = env.value
    mpirun = command.launcher("mpirun")
    if mpirun is not None:  # -x OMP_NUM_THREADS[=value] forwards it to the ranks
        for option in mpirun.option_list:
            if option.key == "x" and option.value and option.value.split("=", 1)[0] == "OMP_NUM_THREADS":
                command.omp_num_threads_set = True
                if "=" in option.value:
                    command.omp_num_threads = option.value.split("=", 1)[1]
                elif env is not None:
                    command.omp_num_threads = env.value


def _derive_launcher_omp(command: LaunchCommand, spawner: Optional[Launcher]) -> None:
    """What the launcher itself puts in OMP_NUM_THREADS when the command leaves it unset."""
    if command.omp_num_threads_set or spawner is None:
        return
    kind = LAUNCHERS[spawner.kind].omp_default
    if kind == table.OMP_ONE_IF_SEVERAL:
        # torch/distributed/run.py config_from_args: `if "OMP_NUM_THREADS" not in os.environ and
        # nproc_per_node > 1: ... os.environ["OMP_NUM_THREADS"] = str(1)`
        if command.nproc_per_node is not None and command.nproc_per_node > 1:
            command.omp_num_threads_by_launcher = "1"
        elif command.nproc_per_node is None:
            command.reasons["omp_num_threads_by_launcher"] = "torchrun sets 1 when nproc_per_node > 1; nproc_per_node is unknown"
    elif kind == table.OMP_CORES_PER_RANK and command.bind_cores_to_rank:
        # deepspeed/launcher/launch.py: with --bind_cores_to_rank, OMP_NUM_THREADS = cores per rank.
        command.reasons["omp_num_threads_by_launcher"] = "deepspeed --bind_cores_to_rank sets the cores given to each rank"
    elif kind == table.OMP_THREADS_OPTION:
        # accelerate/commands/launch.py: num_cpu_threads_per_process defaults to OMP_NUM_THREADS or 1,
        # and utils/launch.py exports it as OMP_NUM_THREADS. A config file may set it instead.
        present, value = _option_value(spawner, "num_cpu_threads_per_process")
        if present:
            command.omp_num_threads_by_launcher = value
        elif "cpu" not in spawner.options and "config_file" not in spawner.options:
            command.omp_num_threads_by_launcher = "1"
        else:
            command.reasons["omp_num_threads_by_launcher"] = "accelerate: from the config file or the CPU count"
    elif kind == table.OMP_CPUS_PER_PROCESS:
        # lightning/fabric/cli.py _torchrun_launch: os.environ.setdefault("OMP_NUM_THREADS",
        # str(_suggested_max_num_threads())) -- CPUs divided by local processes.
        command.reasons["omp_num_threads_by_launcher"] = "fabric run sets CPU count // processes per node"


def _derive_script_config(command: LaunchCommand) -> None:
    """--deepspeed_config X / --deepspeed_config_file X, or HF's `--deepspeed X.json`."""
    args = command.script_args
    for k, arg in enumerate(args):
        text = arg.value if arg.value is not None else arg.raw
        name, eq, attached = text.partition("=")
        if name not in SCRIPT_CONFIG_OPTIONS and name != "--deepspeed":
            continue
        if eq:
            command.deepspeed_config_arg = attached if arg.value is not None else None
            command.deepspeed_config_arg_span = sub_span(arg, len(text) - len(attached), len(text))
            return
        nxt = args[k + 1] if k + 1 < len(args) else None
        if nxt is None:
            continue
        nxt_text = nxt.value if nxt.value is not None else nxt.raw
        if nxt_text.startswith("-"):
            continue  # DeepSpeed's own `--deepspeed` is a flag (deepspeed.add_config_arguments)
        if name == "--deepspeed" and nxt.value is not None and not _looks_like_config_path(nxt.value):
            continue
        command.deepspeed_config_arg = nxt.value
        command.deepspeed_config_arg_span = nxt.span
        return


def _looks_like_config_path(value: str) -> bool:
    return value.endswith((".json", ".jsonc", ".hjson", ".yaml", ".yml")) or "/" in value


# -- per launcher --------------------------------------------------------------------------

def _set_nproc_from_text(command: LaunchCommand, value: Optional[str], present: bool, raw: Optional[str],
                         flag: str) -> None:
    if value is not None and value.isdigit():
        command.nproc_per_node = int(value)
    elif value in ("gpu", "auto", "cpu", "xpu"):
        # torch/distributed/run.py determine_local_world_size: one process per visible device.
        command.reasons["nproc_per_node"] = f"{flag}={value}: one process per visible device, not known statically"
    elif present:
        command.reasons["nproc_per_node"] = f"{flag} {raw or ''} is not a literal".replace("  ", " ")


def _derive_torchrun(command: LaunchCommand, launcher: Launcher) -> None:
    option = _given(launcher, "nproc_per_node")
    if option is not None and option.key == "nproc_per_node" and launcher.may_reset("nproc_per_node"):
        command.reasons["nproc_per_node"] = _unread_reason(launcher, "nproc_per_node")
    elif option is not None:
        _set_nproc_from_text(command, option.value, True, option.raw_value, option.name)
    else:
        # `env` action: PET_NPROC_PER_NODE, else the default "1" (run.py get_args_parser).
        pet = command.env.get("PET_NPROC_PER_NODE")
        if pet is not None:
            _set_nproc_from_text(command, pet.value, True, pet.value, "PET_NPROC_PER_NODE")
        else:
            command.nproc_per_node = 1
    option = _given(launcher, "nnodes")
    text = option.value if option is not None else "1:1"  # run.py default="1:1"
    if option is None and "PET_NNODES" in command.env:
        text = command.env["PET_NNODES"].value
    if launcher.may_reset("nnodes"):
        command.reasons["nnodes"] = _unread_reason(launcher, "nnodes")
    else:
        _set_nnodes(command, text, option.raw_value if option is not None else None)
    port = _given(launcher, "master_port")
    command.master_port = _int(port.value) if port and not port.from_default \
        and not _rendezvous_elsewhere(command, launcher) else None
    if command.nproc_per_node is not None and command.nnodes is not None:
        command.world_size = command.nproc_per_node * command.nnodes


def _rendezvous_elsewhere(command: LaunchCommand, launcher: Launcher) -> bool:
    """torchrun meets at --master_port only with the static rendezvous and no --rdzv-endpoint (run.py:
    `--standalone` switches to c10d on a free localhost port; get_rdzv_endpoint reads
    master_addr:master_port only for rdzv_backend "static" without an endpoint). `tune run` sets
    standalone itself when no endpoint is given."""
    pet = command.env.get("PET_STANDALONE")
    if "standalone" in launcher.options or (pet is not None and pet.value == "1") \
            or wraps_torchrun(launcher.word.split()[0]):
        return True
    endpoint = _given(launcher, "rdzv_endpoint")
    if endpoint is not None and endpoint.value:
        return True
    backend = _given(launcher, "rdzv_backend")
    return backend is not None and backend.value is not None and backend.value != "static"


def _set_nnodes(command: LaunchCommand, text: Optional[str], raw: Optional[str]) -> None:
    """--nnodes=N or MIN:MAX (run.py parse_min_max_nnodes)."""
    if text is None:
        command.reasons["nnodes"] = f"--nnodes {raw or ''} is not a literal".replace("  ", " ")
        return
    pieces = text.split(":")
    if len(pieces) == 1 and pieces[0].isdigit():
        command.nnodes = int(pieces[0])
        command.nnodes_range = (command.nnodes, command.nnodes)
    elif len(pieces) == 2 and all(p.isdigit() for p in pieces):
        low, high = int(pieces[0]), int(pieces[1])
        command.nnodes_range = (low, high)
        if low == high:
            command.nnodes = low
        else:
            command.reasons["nnodes"] = f"elastic: between {low} and {high} nodes"
    else:
        command.reasons["nnodes"] = f"--nnodes={text} is not N or MIN:MAX"


_DEEPSPEED_RESOURCES = ("hostfile", "include", "exclude", "num_gpus", "num_nodes")


def _derive_deepspeed(command: LaunchCommand, launcher: Launcher) -> None:
    command.bind_cores_to_rank = "bind_cores_to_rank" in launcher.options
    command.bind_core_list = _option_value(launcher, "bind_core_list")[1]
    port = _given(launcher, "master_port")
    command.master_port = _int(port.value) if port and not port.from_default else None
    facts = DeepSpeedFacts({key: _option_value(launcher, key)[1] for key in _DEEPSPEED_RESOURCES
                            if _option_value(launcher, key)[0]})
    visible = command.env.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.value and visible.source in ("inline", "export"):
        facts.visible_devices = visible.value
    command.deepspeed = facts
    apply_deepspeed_world(command, deepspeed_world(facts, None))


@dataclass
class DeepSpeedWorld:
    """The processes deepspeed starts: per node, nodes, in all; None with a reason where unknown."""

    per_node: Optional[int] = None
    nodes: Optional[int] = None
    world: Optional[int] = None
    reasons: dict[str, str] = field(default_factory=dict)


def apply_deepspeed_world(command: LaunchCommand, world: DeepSpeedWorld) -> None:
    """Put a DeepSpeedWorld into the command's derived facts (num_gpus is the processes per node)."""
    command.num_gpus = command.nproc_per_node = world.per_node
    command.nnodes, command.world_size = world.nodes, world.world
    for fact in ("num_gpus", "nproc_per_node", "nnodes", "world_size"):
        command.reasons.pop(fact, None)
    command.reasons.update(world.reasons)


def parse_hostfile(text: str) -> Optional[dict[str, int]]:
    """host -> slots of an MPI-style hostfile (`worker-1 slots=4`), as runner.py _parse_hostfile reads
    it; None where the runner would refuse it (a bad line, a host twice, no host)."""
    pool: dict[str, int] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.match(r"^(\S+)\s+slots=(\d+)", line)
        if match is None or match.group(1) in pool:
            return None
        pool[match.group(1)] = int(match.group(2))
    return pool or None


def _node_specs(text: str) -> Optional[dict[str, Optional[set[int]]]]:
    """NODE_SPEC[@NODE_SPEC...], NODE_SPEC = NAME[:SLOT[,SLOT...]] (runner.py parse_node_config_list):
    host -> slots, None for a whole host; None when a slot is not a number."""
    hosts: dict[str, Optional[set[int]]] = {}
    for spec in text.split("@"):
        name, colon, slots = spec.partition(":")
        if not colon:
            hosts.setdefault(name, None)
            continue
        try:
            numbers = {int(slot) for slot in slots.split(",")}
        except ValueError:
            return None
        known = hosts.get(name)
        hosts[name] = numbers if known is None else known | numbers
    return hosts


def deepspeed_world(facts: DeepSpeedFacts, pool: Optional[dict[str, int]]) -> DeepSpeedWorld:
    """What runner.py main makes of the resource options: the hosts of the hostfile (`pool`: host ->
    slots when dslint read it, None when it did not), filtered by --include/--exclude, then the first
    --num_nodes hosts with --num_gpus slots each.

    Without -H the runner reads /job/hostfile; dslint takes it as absent (the local host, all of its
    GPUs) unless the line asks for other hosts (--num_nodes > 1, --include/--exclude naming one)."""
    out = DeepSpeedWorld()
    given = facts.given
    for key in ("include", "exclude", "num_gpus", "num_nodes"):
        if key in given and (given[key] is None or key.startswith("num") and _signed_int(given[key]) is None):
            out.reasons["num_gpus"] = out.reasons["nproc_per_node"] = f"deepspeed --{key} is not a literal"
            return out
    include, exclude = given.get("include") or "", given.get("exclude") or ""
    num_gpus, num_nodes = _signed_int(given.get("num_gpus", "-1")), _signed_int(given.get("num_nodes", "-1"))
    specs = _node_specs(include or exclude) if include or exclude else {}
    if specs is None:
        out.reasons["num_gpus"] = f"deepspeed --{'include' if include else 'exclude'} {include or exclude!r} is not NAME:SLOT,SLOT"
        return out
    if "hostfile" in given:
        hosts = None if pool is None else {host: set(range(slots)) for host, slots in pool.items()}
        if pool is None:
            out.reasons["nnodes"] = "every host of the hostfile, which dslint did not read"
    elif num_nodes > 1 or any(host != "localhost" for host in specs):
        hosts = None  # the default /job/hostfile must hold those hosts
        out.reasons["nnodes"] = "every host of the default hostfile /job/hostfile"
    else:
        hosts = {"localhost": None}  # one host, the count of its GPUs is not in the files
        if facts.visible_devices and not (include or exclude or num_nodes > 1 or num_gpus > 0):
            include = "localhost:" + facts.visible_devices
            specs = _node_specs(include) or {}
    if (include or exclude) and (num_nodes >= 0 or num_gpus >= 0):
        out.reasons["num_gpus"] = "deepspeed refuses --num_nodes/--num_gpus together with --include/--exclude"
        return out
    if include:
        hosts = _include(hosts, specs)
    elif exclude:
        hosts = _exclude(hosts, specs)
    if hosts is not None and num_nodes > 0:
        hosts = dict(list(hosts.items())[:num_nodes])
    if num_gpus > 0:
        hosts = {host: set(range(num_gpus)) for host in hosts} if hosts is not None else None
        out.per_node = num_gpus
    if hosts is None:
        out.nodes = num_nodes if num_nodes > 0 else None
        if out.nodes is not None:
            out.reasons.pop("nnodes", None)
        if out.per_node is None:
            out.reasons.setdefault("num_gpus", "deepspeed starts one process per visible GPU on each host")
    else:
        out.nodes = len(hosts)
        out.reasons.pop("nnodes", None)
        counts = [None if slots is None else len(slots) for slots in hosts.values()]
        if None in counts:
            out.reasons["num_gpus"] = ("deepspeed starts one process per visible GPU on each host"
                                       if not (include or exclude) else
                                       f"deepspeed --{'include' if include else 'exclude'} leaves a host whose GPUs the files do not show")
        else:
            out.world = sum(counts)  # type: ignore[arg-type]
            if len(set(counts)) == 1:
                out.per_node = counts[0]
            elif counts:
                out.reasons["num_gpus"] = f"deepspeed gives the hosts different numbers of processes: {counts}"
    if out.world is None and out.per_node is not None and out.nodes is not None:
        out.world = out.per_node * out.nodes
    if out.per_node is None and "num_gpus" in out.reasons:
        out.reasons["nproc_per_node"] = out.reasons["num_gpus"]
    return out


def _include(hosts: Optional[dict], specs: dict) -> Optional[dict]:
    """--include: only the named hosts, with the named slots (all of a host named alone)."""
    if hosts is None:  # hosts unknown: a host named with its slots still has a known count
        return {host: slots for host, slots in specs.items()}
    picked = {}
    for host, slots in specs.items():
        if host not in hosts:
            return {}  # the runner refuses a host the hostfile lacks
        picked[host] = hosts[host] if slots is None else slots
    return picked


def _exclude(hosts: Optional[dict], specs: dict) -> Optional[dict]:
    """--exclude: every host but those named alone, less the named slots."""
    if hosts is None:
        return None
    kept = {}
    for host, slots in hosts.items():
        if host in specs and specs[host] is None:
            continue
        if host in specs:
            slots = None if slots is None else slots - specs[host]
        if slots is None or slots:
            kept[host] = slots
    return kept


def _signed_int(value: Optional[str]) -> Optional[int]:
    """argparse's type=int: an optional sign and digits."""
    if value is None:
        return None
    text = value.strip()
    return int(text) if text.lstrip("+-").isdigit() else None


def _derive_accelerate(command: LaunchCommand, launcher: Launcher) -> None:
    facts = AccelerateFacts()
    facts.config_file = _option_value(launcher, "config_file")[1]
    facts.num_processes = _int(_option_value(launcher, "num_processes")[1])
    facts.num_machines = _int(_option_value(launcher, "num_machines")[1])
    facts.multi_gpu = "multi_gpu" in launcher.options
    facts.use_deepspeed = "use_deepspeed" in launcher.options
    facts.deepspeed_config_file = _option_value(launcher, "deepspeed_config_file")[1]
    command.accelerate = facts
    port = _given(launcher, "main_process_port")
    command.master_port = _int(port.value) if port and not port.from_default else None
    # --num_processes is the total over all machines; utils/launch.py prepare_multi_gpu_env
    # gives torchrun nproc_per_node = num_processes // num_machines.
    command.world_size = facts.num_processes
    command.nnodes = facts.num_machines
    if facts.num_processes is not None and facts.num_machines:
        command.nproc_per_node = facts.num_processes // facts.num_machines
    else:
        command.reasons["nproc_per_node"] = "accelerate: --num_processes / --num_machines come from the config file"
    if facts.num_processes is None:
        command.reasons["world_size"] = "accelerate: --num_processes comes from the config file"


def _derive_fabric(command: LaunchCommand, launcher: Launcher) -> None:
    # lightning/fabric/cli.py: --devices default "1", --num-nodes default 1, --main-port 29400.
    present, devices = _option_value(launcher, "devices")
    devices = devices if present else "1"
    if devices is not None and devices.isdigit():
        command.nproc_per_node = int(devices)
    elif devices is not None and "," in devices:
        command.nproc_per_node = len([d for d in devices.split(",") if d.strip()])
    else:
        command.reasons["nproc_per_node"] = f"fabric run --devices {devices}: not known statically"
    present, nodes = _option_value(launcher, "num_nodes")
    command.nnodes = _int(nodes) if present else 1
    port = _given(launcher, "main_port")
    command.master_port = _int(port.value) if port and not port.from_default else None
    if command.nproc_per_node is not None and command.nnodes is not None:
        command.world_size = command.nproc_per_node * command.nnodes


_DERIVE = {"torchrun": _derive_torchrun, "torch.distributed.launch": _derive_torchrun, "deepspeed": _derive_deepspeed,
           "accelerate": _derive_accelerate, "lightning": _derive_fabric}


def _derive_from_scheduler(command: LaunchCommand) -> None:
    """No torch-side launcher: srun's or mpirun's tasks are the ranks."""
    if command.mpirun is not None:
        mpi = command.mpirun
        command.world_size = mpi.np
        command.nproc_per_node = mpi.npernode
    elif command.srun is not None:
        srun = command.srun
        command.nproc_per_node = srun.ntasks_per_node
        command.nnodes = srun.nodes
        if srun.ntasks is not None:
            command.world_size = srun.ntasks
        elif srun.nodes is not None and srun.ntasks_per_node is not None:
            command.world_size = srun.nodes * srun.ntasks_per_node


def _srun_facts(launcher: Launcher, sbatch: SbatchDirectives) -> SrunFacts:
    def pick(key: str, directive) -> Optional[str]:
        present, value = _option_value(launcher, key)
        if present:
            return value
        return directive.value if directive is not None else None

    facts = SrunFacts()
    facts.nodes = _int(pick("nodes", sbatch.nodes))
    facts.ntasks = _int(pick("ntasks", sbatch.ntasks))
    facts.ntasks_per_node = _int(pick("ntasks-per-node", sbatch.ntasks_per_node))
    facts.cpus_per_task = _int(pick("cpus-per-task", sbatch.cpus_per_task))
    facts.job_name = pick("job-name", sbatch.job_name)
    present, gpus = _option_value(launcher, "gpus-per-node")
    if present:
        facts.gpus_per_node = _int(gpus.rsplit(":", 1)[-1]) if gpus else None
    elif sbatch.gpus_per_node is not None:
        facts.gpus_per_node = sbatch.gpus_per_node.count
    return facts


def _mpirun_facts(launcher: Launcher) -> MpirunFacts:
    facts = MpirunFacts()
    facts.np = _int(_option_value(launcher, "np")[1])
    facts.npernode = _int(_option_value(launcher, "npernode")[1])
    facts.map_by = _option_value(launcher, "map-by")[1]
    facts.bind_to = _option_value(launcher, "bind-to")[1]
    for option in launcher.option_list:
        if option.key == "x" and option.value:
            name, eq, value = option.value.partition("=")
            facts.exported[name] = value if eq else None
    return facts
