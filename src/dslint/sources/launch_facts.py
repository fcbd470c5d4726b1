"""Facts a launch command implies, computed the way each launcher computes them.

Unknown stays None, with a reason in `command.reasons[fact]`.
"""
from __future__ import annotations

from typing import Optional

from .launch_options import sub_span
from .launch_model import (
    AccelerateFacts,
    LaunchCommand,
    Launcher,
    MpirunFacts,
    SbatchDirectives,
    SrunFacts,
)

SPAWNERS = ("torchrun", "torch.distributed.launch", "deepspeed", "accelerate", "lightning")
SCRIPT_CONFIG_OPTIONS = ("--deepspeed_config", "--deepspeed_config_file", "--deepspeed-config")


def _int(value: Optional[str]) -> Optional[int]:
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() else None


def _option_value(launcher: Launcher, key: str) -> tuple[bool, Optional[str]]:
    option = launcher.options.get(key)
    return (option is not None, option.value if option else None)


def derive_facts(command: LaunchCommand, sbatch: SbatchDirectives) -> None:
    """Fill the derived facts of a parsed command (in place)."""
    _derive_omp(command)
    _derive_script_config(command)
    for launcher in command.launchers:
        if launcher.kind == "srun":
            command.srun = _srun_facts(launcher, sbatch)
        elif launcher.kind == "mpirun":
            command.mpirun = _mpirun_facts(launcher)
    spawner = next((lc for lc in reversed(command.launchers) if lc.kind in SPAWNERS), None)
    if spawner is None:
        _derive_from_scheduler(command)
    elif spawner.kind in ("torchrun", "torch.distributed.launch"):
        _derive_torchrun(command, spawner)
    elif spawner.kind == "deepspeed":
        _derive_deepspeed(command, spawner)
    elif spawner.kind == "accelerate":
        _derive_accelerate(command, spawner)
    elif spawner.kind == "lightning":
        _derive_fabric(command, spawner)
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
    kind = spawner.kind
    if kind in ("torchrun", "torch.distributed.launch"):
        # torch/distributed/run.py config_from_args: `if "OMP_NUM_THREADS" not in os.environ and
        # nproc_per_node > 1: ... os.environ["OMP_NUM_THREADS"] = str(1)`
        if command.nproc_per_node is not None and command.nproc_per_node > 1:
            command.omp_num_threads_by_launcher = "1"
        elif command.nproc_per_node is None:
            command.reasons["omp_num_threads_by_launcher"] = "torchrun sets 1 when nproc_per_node > 1; nproc_per_node is unknown"
    elif kind == "deepspeed" and command.bind_cores_to_rank:
        # deepspeed/launcher/launch.py: with --bind_cores_to_rank, OMP_NUM_THREADS = cores per rank.
        command.reasons["omp_num_threads_by_launcher"] = "deepspeed --bind_cores_to_rank sets the cores given to each rank"
    elif kind == "accelerate":
        # accelerate/commands/launch.py: num_cpu_threads_per_process defaults to OMP_NUM_THREADS or 1,
        # and utils/launch.py exports it as OMP_NUM_THREADS. A config file may set it instead.
        present, value = _option_value(spawner, "num_cpu_threads_per_process")
        if present:
            command.omp_num_threads_by_launcher = value
        elif "cpu" not in spawner.options and "config_file" not in spawner.options:
            command.omp_num_threads_by_launcher = "1"
        else:
            command.reasons["omp_num_threads_by_launcher"] = "accelerate: from the config file or the CPU count"
    elif kind == "lightning":
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
    option = launcher.options.get("nproc_per_node")
    if option is not None:
        _set_nproc_from_text(command, option.value, True, option.raw_value, option.name)
    else:
        # `env` action: PET_NPROC_PER_NODE, else the default "1" (run.py get_args_parser).
        pet = command.env.get("PET_NPROC_PER_NODE")
        if pet is not None:
            _set_nproc_from_text(command, pet.value, True, pet.value, "PET_NPROC_PER_NODE")
        else:
            command.nproc_per_node = 1
    option = launcher.options.get("nnodes")
    text = option.value if option is not None else "1:1"  # run.py default="1:1"
    if option is None and "PET_NNODES" in command.env:
        text = command.env["PET_NNODES"].value
    _set_nnodes(command, text, option.raw_value if option is not None else None)
    port = launcher.options.get("master_port")
    command.master_port = _int(port.value) if port and not port.from_default else None
    if command.nproc_per_node is not None and command.nnodes is not None:
        command.world_size = command.nproc_per_node * command.nnodes


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


def _derive_deepspeed(command: LaunchCommand, launcher: Launcher) -> None:
    command.bind_cores_to_rank = "bind_cores_to_rank" in launcher.options
    present, command.bind_core_list = _option_value(launcher, "bind_core_list")
    port = launcher.options.get("master_port")
    command.master_port = _int(port.value) if port and not port.from_default else None
    has_hostfile = "hostfile" in launcher.options
    include = launcher.options.get("include")
    if include is not None:
        _derive_deepspeed_include(command, include.value)
        return
    if "exclude" in launcher.options:
        command.reasons["num_gpus"] = "--exclude removes slots from a hostfile the file does not show"
        return
    present, value = _option_value(launcher, "num_gpus")
    if present:
        command.num_gpus = _int(value)
        if command.num_gpus is None:
            command.reasons["num_gpus"] = "--num_gpus is not a literal"
    else:
        _derive_deepspeed_visible_devices(command, has_hostfile)
    command.nproc_per_node = command.num_gpus
    if "nproc_per_node" not in command.reasons and command.num_gpus is None:
        command.reasons["nproc_per_node"] = command.reasons.get("num_gpus", "")
    present, value = _option_value(launcher, "num_nodes")
    if present:
        command.nnodes = _int(value)
    elif not has_hostfile:
        # runner.py: without a hostfile the resource pool is localhost only. (The default
        # hostfile /job/hostfile is assumed absent.)
        command.nnodes = 1
    else:
        command.reasons["nnodes"] = "every host of the hostfile"
    if command.num_gpus is not None and command.nnodes is not None:
        command.world_size = command.num_gpus * command.nnodes


def _derive_deepspeed_visible_devices(command: LaunchCommand, has_hostfile: bool) -> None:
    # runner.py main: with no hostfile and no --include/--exclude/--num_gpus/--num_nodes,
    # CUDA_VISIBLE_DEVICES becomes --include localhost:<devices>.
    visible = command.env.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.value and not has_hostfile and visible.source in ("inline", "export"):
        command.num_gpus = len([d for d in visible.value.split(",") if d.strip()])
    else:
        command.reasons["num_gpus"] = "deepspeed starts one process per visible GPU on each host"


def _derive_deepspeed_include(command: LaunchCommand, include: Optional[str]) -> None:
    """NODE_SPEC[@NODE_SPEC...], NODE_SPEC = NAME[:SLOT[,SLOT...]] (runner.py parse_node_config_list)."""
    if include is None:
        command.reasons["num_gpus"] = "--include is not a literal"
        return
    hosts: dict[str, set[str]] = {}
    whole_hosts = False
    for spec in include.split("@"):
        name, colon, slots = spec.partition(":")
        if not colon:
            whole_hosts = True
            hosts.setdefault(name, set())
            continue
        hosts.setdefault(name, set()).update(s for s in slots.split(",") if s)
    command.nnodes = len(hosts)
    if whole_hosts:
        command.reasons["num_gpus"] = "--include names a whole host: every slot of the hostfile"
        return
    counts = {len(slots) for slots in hosts.values()}
    command.world_size = sum(len(slots) for slots in hosts.values())
    if len(counts) == 1:
        command.num_gpus = counts.pop()
        command.nproc_per_node = command.num_gpus
    else:
        command.reasons["num_gpus"] = "--include gives hosts different numbers of slots"


def _derive_accelerate(command: LaunchCommand, launcher: Launcher) -> None:
    facts = AccelerateFacts()
    facts.config_file = _option_value(launcher, "config_file")[1]
    facts.num_processes = _int(_option_value(launcher, "num_processes")[1])
    facts.num_machines = _int(_option_value(launcher, "num_machines")[1])
    facts.multi_gpu = "multi_gpu" in launcher.options
    facts.use_deepspeed = "use_deepspeed" in launcher.options
    facts.deepspeed_config_file = _option_value(launcher, "deepspeed_config_file")[1]
    command.accelerate = facts
    port = launcher.options.get("main_process_port")
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
    port = launcher.options.get("main_port")
    command.master_port = _int(port.value) if port and not port.from_default else None
    if command.nproc_per_node is not None and command.nnodes is not None:
        command.world_size = command.nproc_per_node * command.nnodes


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
