"""YAML launch configs: accelerate's `--config_file` and LightningCLI's `--config`, with positions.

Both tools read their YAML with PyYAML's safe loader, so dslint does too (`read_yaml`: one
compose gives the value and the line/column of every mapping key). What the tools then do
with the file is modelled here, from their source:

- `accelerate_launch`: accelerate 1.15 (huggingface/accelerate@16cb6eb)
  `commands/config/config_args.py` (`load_config_from_file`, `ClusterConfig`: unknown keys are
  a ValueError), `commands/launch.py` `_validate_launch_command` (flags win over the file; the
  file's `deepspeed_config` keys become arguments; `num_cpu_threads_per_process` defaults to the
  inherited OMP_NUM_THREADS, else 1) and `launch_command` (which launcher runs), and
  `utils/launch.py` (`prepare_multi_gpu_env` and `prepare_simple_launcher_cmd_env` export
  OMP_NUM_THREADS = num_cpu_threads_per_process; `prepare_deepspeed_cmd_env` does not: on one
  machine `deepspeed_launcher` runs `torch.distributed.run`, which sets 1 when it is unset and
  there are several processes), and `utils/dataclasses.py` `DeepSpeedPlugin.__post_init__`
  (the DeepSpeed config built from those arguments when no deepspeed_config_file is given).
- `lightning_cli_args` / `lightning_trainer`: Lightning 2.6 `pytorch/cli.py` (`-c/--config` is
  jsonargparse's ActionConfigFile on the main parser and on every subcommand parser) and
  jsonargparse 4.x: arguments apply in order, a later config or `--trainer.key` overrides an
  earlier one, a strategy `class_path` equal to the previous one merges its `init_args`, another
  replaces it; a main-level config holds the subcommand's keys under its name (`fit:`).

Unknown stays unknown: a file that does not parse, a path that is not a literal or not found,
an option dslint does not model gives no value (with the reason), never a guessed one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..model import Span
from ..textpos import LineIndex

MAX_YAML_CHARS = 2_000_000  # launch configs are a few hundred bytes; anything larger is not one

PathKey = tuple  # ("deepspeed_config", "zero_stage"), ("trainer", "strategy", "init_args", "stage")


# -- reading ------------------------------------------------------------------------------------

@dataclass
class YamlDoc:
    """One YAML file: its value and where each mapping key is written."""

    path: str  # display path
    text: Optional[str] = None
    value: Any = None
    error: Optional[str] = None  # why the file gives no value (unreadable, not YAML, several documents)
    # key path -> (row, column, end row, end column) of the key, and the end of its value when that
    # value is a scalar (1-based, end exclusive); only mapping keys that are plain strings.
    keys: dict = field(default_factory=dict)

    def span(self, key: PathKey) -> Optional[Span]:
        """The `key: value` pair (the key alone when its value is a block), or None."""
        found = self.keys.get(tuple(key))
        if found is None or self.text is None:
            return None
        lines = self.__dict__.get("_lines")
        if lines is None:
            lines = self._lines = LineIndex(self.text)
        row, column, end_row, end_column = found
        return lines.span(lines.offset(row, column), lines.offset(end_row, end_column))


def parse_yaml(text: str, path: str = "<yaml>") -> YamlDoc:
    """Parse `text` as PyYAML's safe_load does (one document), indexing the mapping keys."""
    import yaml  # a dependency; imported only when a launch names a YAML file

    doc = YamlDoc(path=path, text=text)
    loader_class = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    loader = loader_class(text)
    try:
        node = loader.get_single_node()  # ComposerError for several documents, as safe_load
        doc.value = loader.construct_document(node) if node is not None else None
    except Exception as error:  # YAMLError, RecursionError ...: the file says nothing dslint can use
        doc.value, doc.error = None, f"not readable as YAML ({type(error).__name__}: {_first_line(error)})"
        return doc
    finally:
        loader.dispose()
    if node is not None:
        _index(node, (), doc.keys)
    return doc


def read_yaml(abspath: str, display: str) -> YamlDoc:
    """Read and parse one YAML file; an unreadable file gives a doc with `error` set (never raises)."""
    from .files import TooLarge, read_regular

    try:
        data = read_regular(abspath, MAX_YAML_CHARS * 4)  # (never blocks on a FIFO)
    except TooLarge:
        return YamlDoc(path=display, error="too large for a launch config")
    except OSError as error:
        return YamlDoc(path=display, error=f"cannot be read ({error.strerror or error})")
    if len(data) > MAX_YAML_CHARS * 4:
        return YamlDoc(path=display, error="too large for a launch config")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return YamlDoc(path=display, error="is not UTF-8 text")
    return parse_yaml(text, display)


def config_keys(doc: YamlDoc) -> dict:
    """key path -> Span of every mapping key of a YAML DeepSpeed config read with `yaml.safe_load` (the
    `key: value` pair, or the key of a block), for a config document of its value (config_dicts.DictDoc);
    keys under a list are left out (no rule reports inside one)."""
    found: dict = {}
    for key in doc.keys:
        span = doc.span(key) if all(isinstance(part, str) for part in key) else None
        if span is not None:
            found[key] = span
    return found


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [""])[0]


def _index(node, prefix: tuple, keys: dict) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag != "tag:yaml.org,2002:str":
                continue  # `<<` merge keys and non-string keys: no position
            end = value.end_mark if isinstance(value, yaml.ScalarNode) else key.end_mark
            keys[prefix + (key.value,)] = (key.start_mark.line + 1, key.start_mark.column + 1,
                                           end.line + 1, end.column + 1)
            _index(value, prefix + (key.value,), keys)
    elif isinstance(node, yaml.SequenceNode):
        for number, item in enumerate(node.value):
            _index(item, prefix + (number,), keys)


# -- accelerate launch --------------------------------------------------------------------------

NOT_LITERAL = object()  # a launch-line value the file does not show (`--num_processes $N`)

# ClusterConfig's fields (BaseConfig's included), plus the two legacy keys process_config converts.
ACCELERATE_CONFIG_KEYS = frozenset({
    "command_file", "commands", "compute_environment", "debug", "deepspeed_config", "distributed_type",
    "downcast_bf16", "dynamo_config", "enable_cpu_affinity", "fp8_config", "fsdp_config", "gpu_ids",
    "machine_rank", "main_process_ip", "main_process_port", "main_training_function", "megatron_lm_config",
    "mixed_precision", "mpirun_config", "num_machines", "num_processes", "parallelism_config", "rdzv_backend",
    "same_network", "tpu_env", "tpu_name", "tpu_use_cluster", "tpu_use_sudo", "tpu_vm", "tpu_zone", "use_cpu",
    "fp16", "dynamo_backend",
})
DISTRIBUTED_TYPES = ("NO", "MULTI_CPU", "MULTI_GPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA",
                     "MULTI_XPU", "DEEPSPEED", "FSDP", "XLA", "MEGATRON_LM", "MULTI_HPU", "MULTI_NEURON")
_MULTI_DEVICE = tuple(t for t in DISTRIBUTED_TYPES if t.startswith("MULTI_") and t != "MULTI_CPU")
_LAUNCHER_FLAGS = ("multi_gpu", "tpu", "tpu_use_cluster", "use_deepspeed", "use_fsdp", "use_megatron_lm")
# DeepSpeedPlugin's launcher-side fields (prepare_deepspeed_cmd_env exports them as ACCELERATE_* variables).
DEEPSPEED_FIELDS = ("zero_stage", "offload_optimizer_device", "offload_param_device", "offload_optimizer_nvme_path",
                    "offload_param_nvme_path", "gradient_accumulation_steps", "gradient_clipping", "zero3_init_flag",
                    "zero3_save_16bit_model", "deepspeed_config_file", "deepspeed_multinode_launcher",
                    "deepspeed_hostfile", "deepspeed_inclusion_filter", "deepspeed_exclusion_filter")


@dataclass
class AccelerateLaunch:
    """What one `accelerate launch` runs, from its flags and its `--config_file` (None: unknown)."""

    config: Optional[YamlDoc] = None  # the --config_file read
    unknown: Optional[str] = None  # why the settings are unknown as a whole
    launcher: Optional[str] = None  # deepspeed | multi_gpu | simple | tpu | "multi_gpu or simple"
    distributed_type: Optional[str] = None  # DEEPSPEED, FSDP, MULTI_GPU, NO ... as accelerate decides it
    num_processes: Optional[int] = None
    num_machines: Optional[int] = None
    mixed_precision: Optional[str] = None
    deepspeed: dict = field(default_factory=dict)  # DEEPSPEED_FIELDS given (flag over file): name -> value
    from_flag: set = field(default_factory=set)  # the names above that the launch line gave
    omp_num_threads: Optional[str] = None  # OMP_NUM_THREADS in every rank; None: unset or unknown
    omp_source: str = ""  # how, or why it is unknown
    omp_by_launcher: bool = False  # the value is the launcher's default, not one the launch gives

    def span(self, key: PathKey) -> Optional[Span]:
        """Where the config file sets `key` (None: not in the file, or given as a flag)."""
        if self.config is None or (len(key) == 2 and key[0] == "deepspeed_config" and key[1] in self.from_flag):
            return None
        return self.config.span(key)

    def deepspeed_config(self) -> Optional[dict]:
        """The DeepSpeed config DeepSpeedPlugin builds from these settings (None: it reads a file, or unknown)."""
        if self.launcher != "deepspeed" or self.deepspeed.get("deepspeed_config_file") is not None:
            return None
        if self.config is None and not {"zero_stage", "offload_optimizer_device"} <= self.from_flag:
            return None  # no --config_file: accelerate's default config file (not in the project) may fill them
        ds = self.deepspeed
        stage = ds.get("zero_stage")
        if stage is None:
            stage = 2  # int(os.environ.get("ACCELERATE_DEEPSPEED_ZERO_STAGE", 2))
        elif isinstance(stage, str) and stage.strip().isdigit():
            stage = int(stage)
        if isinstance(stage, bool) or not isinstance(stage, int):
            return None
        devices = []
        for name in ("offload_optimizer_device", "offload_param_device"):
            value = ds.get(name)
            if value is NOT_LITERAL or (value is not None and not isinstance(value, str)):
                return None
            devices.append("none" if value is None else value.lower())
        if any(ds.get(name) is NOT_LITERAL for name in ("gradient_accumulation_steps", "gradient_clipping")):
            return None
        return deepspeed_plugin_config(dict(ds, zero_stage=stage, offload_optimizer_device=devices[0],
                                            offload_param_device=devices[1]))


class _Unknown(Exception):
    pass


def deepspeed_plugin_config(fields: dict, unknown: Optional[Callable[[str], Any]] = None) -> Optional[dict]:
    """The config accelerate's DeepSpeedPlugin.__post_init__ builds when it reads no config file
    (accelerate 1.x utils/dataclasses.py), from its settings once the environment is read: `fields`
    maps DEEPSPEED_FIELDS names to values (absent or None: the plugin's default). A NOT_LITERAL setting
    makes the whole config None, or, given `unknown`, the key's value `unknown(name)` (present, value unknown)."""
    def get(name: str, default: Any) -> Any:
        value = fields.get(name)
        if value is NOT_LITERAL:
            if unknown is None:
                raise _Unknown
            return unknown(name)
        return default if value is None else value

    try:
        stage = get("zero_stage", 2)
        blocks = {}
        for block in ("offload_optimizer", "offload_param"):
            device = get(f"{block}_device", "none")
            # nvme_path is written only for an "nvme" device (the plugin's default path is the string "none")
            if fields.get(f"{block}_device") is NOT_LITERAL:
                path = unknown(f"{block}_nvme_path")
            else:
                path = get(f"{block}_nvme_path", None) if device == "nvme" else None
            blocks[block] = {"device": device, "nvme_path": path}
        gas = get("gradient_accumulation_steps", "auto")
        clipping = get("gradient_clipping", "auto")
        save16 = get("zero3_save_16bit_model", False)
    except _Unknown:
        return None
    zero = {"stage": stage, **blocks,
            "stage3_gather_16bit_weights_on_model_save": save16 if not isinstance(save16, (str, bool))
            else str(save16).lower() == "true"}
    config = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
              "gradient_accumulation_steps": gas, "zero_optimization": zero}
    if clipping:
        config["gradient_clipping"] = clipping
    return config


def _flag_int(value) -> Any:
    if value is None or value is NOT_LITERAL:
        return value
    text = str(value).strip()
    return int(text) if text.isdigit() else NOT_LITERAL


def accelerate_launch(flags: dict, inherited_omp: tuple, config: Optional[YamlDoc],
                      config_given: bool) -> AccelerateLaunch:
    """Model `accelerate launch` (see the module docstring for the source).

    flags: the launch line's accelerate options by argparse dest: True for a flag, the literal
    value, or NOT_LITERAL. inherited_omp: (set, literal value or None) of OMP_NUM_THREADS in the
    environment accelerate starts in. config: the --config_file read (None when none is given or it
    could not be found: `config_given` tells which).
    """
    out = AccelerateLaunch(config=config)
    file: dict = {}
    if config_given:
        if config is None:
            out.unknown = ("the --config_file is not a file of the project dslint can find (not a literal path, "
                           "not found, or found both beside the launch file and at the root)")
            return out
        if config.error is not None:
            out.unknown = f"{config.path} is {config.error}"
            return out
        if not isinstance(config.value, dict):
            out.unknown = f"{config.path} is not a mapping"
            return out
        file = config.value
        extra = sorted(str(k) for k in file if k not in ACCELERATE_CONFIG_KEYS)
        if extra:
            out.unknown = f"accelerate rejects {config.path}: unknown keys {extra} (ValueError)"
            return out
        if file.get("compute_environment", "LOCAL_MACHINE") != "LOCAL_MACHINE":
            out.unknown = f"{config.path} is a {file.get('compute_environment')} config (not started on this machine)"
            return out
        distributed = file.get("distributed_type")
        if distributed not in DISTRIBUTED_TYPES:
            out.unknown = (f"{config.path} has no distributed_type (accelerate raises ValueError)" if distributed is None
                           else f"distributed_type {distributed!r} in {config.path} is not one accelerate knows")
            return out
    given = {name for name in _LAUNCHER_FLAGS if flags.get(name) is True}
    cpu = flags.get("cpu") is True
    # Which distributed type: the flags, else the file (only when no launcher flag is given).
    if given:
        kind = ("DEEPSPEED" if "use_deepspeed" in given else "FSDP" if "use_fsdp" in given else
                "MEGATRON_LM" if "use_megatron_lm" in given else "MULTI_GPU" if "multi_gpu" in given else "XLA")
    elif file:
        kind = file["distributed_type"]
    else:
        kind = None  # no file: multi-GPU when more than one GPU is visible
    out.distributed_type = "MULTI_CPU" if cpu and kind is None else kind
    # Processes and machines: a flag, else the file's (ClusterConfig defaults: num_processes -1, num_machines 1).
    processes, machines = _flag_int(flags.get("num_processes")), _flag_int(flags.get("num_machines"))
    if file:
        if processes is None:
            processes = file.get("num_processes", 1 if file["distributed_type"] == "NO" else -1)
            if processes == -1:
                out.unknown = f"{config.path} has no num_processes and the launch line gives none (accelerate raises)"
                return out
        if machines is None:
            machines = file.get("num_machines", 1)
    elif machines is None:
        machines = 1
    out.num_processes = processes if isinstance(processes, int) and not isinstance(processes, bool) else None
    out.num_machines = machines if isinstance(machines, int) and not isinstance(machines, bool) else None
    # DeepSpeed fields: the file's deepspeed_config keys fill what the launch line does not give.
    section = file.get("deepspeed_config") if isinstance(file.get("deepspeed_config"), dict) else {}
    for name in DEEPSPEED_FIELDS:
        if name in flags:
            out.deepspeed[name] = _flag_int(flags[name]) if name == "zero_stage" else flags[name]
            out.from_flag.add(name)
        elif name in section and section[name] is not None:
            out.deepspeed[name] = section[name]
    precision = flags.get("mixed_precision")
    out.mixed_precision = precision if isinstance(precision, str) else (
        None if precision is NOT_LITERAL else (file.get("mixed_precision") or "no") if file else None)
    # launch_command: which launcher runs the processes.
    if kind == "DEEPSPEED" and not cpu:
        out.launcher = "deepspeed"
    elif kind in ("FSDP", "MEGATRON_LM", *_MULTI_DEVICE) and not cpu:
        out.launcher = "multi_gpu"
    elif kind == "XLA" and not cpu:
        out.launcher = "tpu"
    elif kind is None and not cpu:
        out.launcher = "multi_gpu or simple"
    else:
        out.launcher = "simple"
    _accelerate_threads(out, flags, inherited_omp, bool(file.get("use_cpu")) if file else cpu)
    return out


def _accelerate_threads(out: AccelerateLaunch, flags: dict, inherited: tuple, use_cpu: bool) -> None:
    omp_set, omp_value = inherited
    if out.launcher == "tpu":
        out.omp_source = "accelerate's TPU launcher"
        return
    if out.launcher == "deepspeed":
        processes, machines = out.num_processes, out.num_machines
        multinode_launcher = out.deepspeed.get("deepspeed_multinode_launcher") or "pdsh"
        if machines is not None and machines > 1 and multinode_launcher != "standard":
            # deepspeed's runner (pdsh, openmpi ...) on every node: it sets no OMP_NUM_THREADS itself.
            out.omp_num_threads = omp_value if omp_set else None
            out.omp_source = ("inherited by the deepspeed runner" if omp_set else
                              f"the deepspeed runner ({multinode_launcher}) leaves OMP_NUM_THREADS unset")
            return
        # deepspeed_launcher runs torch.distributed.run in-process; --num_cpu_threads_per_process is not used.
        per_node = processes // machines if processes is not None and machines else None
        if omp_set:
            out.omp_num_threads = omp_value
            out.omp_source = "the inherited OMP_NUM_THREADS (accelerate's DeepSpeed launcher runs torchrun)"
        elif per_node is not None and per_node > 1:
            out.omp_num_threads, out.omp_by_launcher = "1", True
            out.omp_source = ("accelerate's DeepSpeed launcher runs torchrun, which sets OMP_NUM_THREADS=1 when it is "
                              "unset (--num_cpu_threads_per_process is not used)")
        else:
            out.omp_source = "torchrun leaves it unset for one process per node" if per_node == 1 else \
                "torchrun sets 1 for several processes per node; the number is unknown"
        return
    # multi_gpu and simple launchers: OMP_NUM_THREADS = num_cpu_threads_per_process, whose default is the
    # inherited OMP_NUM_THREADS, else 1 (else CPU cores // local processes for a CPU run).
    threads = flags.get("num_cpu_threads_per_process")
    if threads is not None:
        threads = _flag_int(threads)
        out.omp_num_threads = str(threads) if isinstance(threads, int) else None
        out.omp_source = "--num_cpu_threads_per_process" if isinstance(threads, int) else \
            "--num_cpu_threads_per_process is not a literal"
    elif omp_set:
        value = omp_value.strip() if isinstance(omp_value, str) else None
        out.omp_num_threads = value if value is not None and value.isdigit() else None
        out.omp_source = "the inherited OMP_NUM_THREADS (accelerate's --num_cpu_threads_per_process default)"
    elif use_cpu:
        out.omp_source = "a CPU run: accelerate uses physical cores // local processes"
    else:
        out.omp_num_threads, out.omp_by_launcher = "1", True
        out.omp_source = ("accelerate exports OMP_NUM_THREADS=--num_cpu_threads_per_process, whose default is the "
                          "inherited OMP_NUM_THREADS, else 1")


# -- LightningCLI ---------------------------------------------------------------------------------

LIGHTNING_SUBCOMMANDS = ("fit", "validate", "test", "predict")
# The Trainer arguments the setup reads; other trainer keys (max_epochs ...) are not needed.
TRAINER_KEYS = ("devices", "num_nodes", "strategy", "precision", "accelerator", "plugins")
_CONFIG_OPTIONS = ("--config", "-c")


@dataclass
class CliArgs:
    """What a LightningCLI reads from its command line, in order."""

    subcommand: Optional[str] = None
    # ("config", written path, Span, nested under the subcommand?) | ("set", trainer key path, value, Span)
    steps: list = field(default_factory=list)
    unknown: Optional[str] = None  # why the trainer arguments are unknown as a whole


def lightning_cli_args(args: list, run: bool = True) -> CliArgs:
    """The configs and `--trainer.*` options of a LightningCLI's command line (ShellArg values).

    With `run` (the default), the first positional word is the subcommand; options before it
    belong to the main parser, whose config holds the subcommand's keys under its name.
    """
    out = CliArgs()
    level_main = run
    k = 0
    while k < len(args):
        arg = args[k]
        text = arg.value
        if text is None:
            out.unknown = f"{arg.raw!r} on the launch line is not a literal"
            return out
        nxt = args[k + 1] if k + 1 < len(args) else None
        if not text.startswith("-"):
            if level_main and text in LIGHTNING_SUBCOMMANDS:
                out.subcommand, level_main = text, False
            elif level_main:
                out.unknown = f"{text!r} is not a LightningCLI subcommand"
                return out
            k += 1
            continue
        name, eq, attached = text.partition("=")
        if name in _CONFIG_OPTIONS or (name.startswith("-c") and not name.startswith("--") and len(name) > 2):
            if name.startswith("-c") and len(name) > 2 and not name.startswith("--"):
                value, span = name[2:], arg.span  # -cfile.yaml
            elif eq:
                value, span = attached, arg.span
            elif nxt is not None:
                if nxt.value is None:
                    out.unknown = f"--config {nxt.raw} is not a literal"
                    return out
                value, span, k = nxt.value, nxt.span, k + 1
            else:
                out.unknown = "--config without a value"
                return out
            out.steps.append(("config", value, span, level_main))
            k += 1
            continue
        if name in ("--print_config", "--help", "-h"):
            out.unknown = f"{name}: the command does not train"
            return out
        if name == "--trainer":
            out.unknown = "--trainer is given as a whole (a file or a mapping)"
            return out
        takes_next = not eq and nxt is not None and not (nxt.value or nxt.raw).startswith("-")
        if name.startswith("--trainer."):
            path = tuple(name[len("--trainer."):].split("."))
            if eq:
                value, span = _cli_value(attached), arg.span
            elif takes_next:
                value, span = (_cli_value(nxt.value) if nxt.value is not None else NOT_LITERAL), nxt.span
            else:
                value, span = NOT_LITERAL, arg.span  # a value-less option: not one dslint models
            out.steps.append(("set", path, value, span))
        k += 2 if takes_next else 1
    if run and out.subcommand is None:
        out.unknown = "no LightningCLI subcommand on the launch line"
    return out


def _cli_value(text: Optional[str]) -> Any:
    """jsonargparse reads a command-line value as YAML (`4` is 4, `true` is True)."""
    if text is None:
        return NOT_LITERAL
    doc = parse_yaml(text)
    return NOT_LITERAL if doc.error is not None else doc.value


@dataclass
class LightningTrainer:
    """The Trainer arguments a LightningCLI command line gives, after every config and option."""

    values: dict = field(default_factory=dict)  # TRAINER_KEYS given -> value (strategy: str or class dict)
    where: dict = field(default_factory=dict)  # key path ("strategy", "init_args", "stage") -> (path, Span)
    files: list = field(default_factory=list)  # display paths of the configs read, in order
    unknown: dict = field(default_factory=dict)  # key -> why ("*": everything)


def lightning_trainer(cli: CliArgs, read: Callable[[str], Optional[YamlDoc]], launch_path: Optional[str]) -> LightningTrainer:
    """Merge the configs and options in order, as jsonargparse does. `read(written)` gives the
    YAML a `--config` names (None: not found, or not a literal path of the project)."""
    out = LightningTrainer()
    if cli.unknown:
        out.unknown["*"] = cli.unknown
        return out
    for step in cli.steps:
        if step[0] == "config":
            _, written, span, main_level = step
            doc = read(written)
            if doc is None or doc.error is not None:
                out.unknown["*"] = f"--config {written}: " + ("not found in the project" if doc is None else
                                                              f"{doc.path} is {doc.error}")
                return out
            out.files.append(doc.path)
            prefix: tuple = ()
            value = doc.value
            if main_level and cli.subcommand is not None:
                prefix = (cli.subcommand,)
                value = value.get(cli.subcommand) if isinstance(value, dict) else None
            trainer = value.get("trainer") if isinstance(value, dict) else None
            if trainer is None:
                continue
            if not isinstance(trainer, dict):
                out.unknown["*"] = f"trainer in {doc.path} is not a mapping"
                return out
            for key in TRAINER_KEYS:
                if key in trainer:
                    _apply(out, key, trainer[key], lambda path: (doc.path, doc.span(prefix + ("trainer",) + path)))
        else:
            _, path, value, span = step
            if not path or path[0] not in TRAINER_KEYS:
                continue
            key = path[0]
            where = lambda _path: (launch_path, span)  # noqa: E731
            if value is NOT_LITERAL:
                out.unknown[key] = f"--trainer.{'.'.join(path)} is not a literal"
                out.values.pop(key, None)
            elif len(path) == 1:
                _apply(out, key, value, where)
            elif key == "strategy" and len(path) == 3 and path[1] == "init_args" and \
                    isinstance(out.values.get("strategy"), dict):
                out.values["strategy"].setdefault("init_args", {})[path[2]] = value
                out.where[("strategy", "init_args", path[2])] = where(None)
            else:
                out.unknown[key] = f"--trainer.{'.'.join(path)} is not modelled"
                out.values.pop(key, None)
    return out


def _apply(out: LightningTrainer, key: str, value: Any, where: Callable) -> None:
    out.unknown.pop(key, None)
    if key != "strategy" or not isinstance(value, dict):
        out.values[key] = value
        out.where[(key,)] = where((key,))
        if key == "strategy":
            for old in [k for k in out.where if k[0] == "strategy" and len(k) > 1]:
                del out.where[old]
        return
    if set(value) - {"class_path", "init_args"} or not isinstance(value.get("class_path"), str) or \
            not isinstance(value.get("init_args", {}) or {}, dict):
        out.unknown["strategy"] = "strategy is not a class_path with init_args"
        out.values.pop("strategy", None)
        return
    previous = out.values.get("strategy")
    init_args = dict(value.get("init_args") or {})
    if isinstance(previous, dict) and _class_name(previous["class_path"]) == _class_name(value["class_path"]):
        init_args = {**previous.get("init_args", {}), **init_args}  # same class: init_args merge
    else:
        for old in [k for k in out.where if k[0] == "strategy"]:
            del out.where[old]
    out.values["strategy"] = {"class_path": value["class_path"], "init_args": init_args}
    out.where[("strategy",)] = where(("strategy",))
    for name in value.get("init_args") or {}:
        out.where[("strategy", "init_args", name)] = where(("strategy", "init_args", name))


def _class_name(class_path: str) -> str:
    return class_path.rsplit(".", 1)[-1]
