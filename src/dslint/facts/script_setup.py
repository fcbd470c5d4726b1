"""What a training script says about its setup, as plain picklable data for linking.

Extracted once per script (`summary.extra["setup"]`): where the DeepSpeed config comes from
(`deepspeed.initialize(config=...)`, `args.deepspeed_config`, `TrainingArguments(deepspeed=...)`,
`DeepSpeedStrategy(config=...)`, `PL_DEEPSPEED_CONFIG_PATH`), which optimizer drives the step,
which Lightning Trainer/Fabric it builds, the TrainingArguments fields the HF Trainer compares
with the config, whether it spawns processes itself, its DataLoader workers, literal rendezvous
ports and how it saves weights. Everything is plain data with Spans: setup rules run after every
file is parsed, maybe in another process.

Values go through the facts layer: names through the bindings model (`values_of`: a parameter
that shadows a module constant is not the constant), constants through `values.constant` (module
constants, f-strings of known parts) but never through a command-line option, whose default the
launch line may override; argparse options through `values.argparse_defaults`.
"""
from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..model import Span
from ..sources.names import dotted, is_library, root_name
from .distributed import FABRIC, HF_TRAINERS, LIGHTNING_TRAINERS
from .script import CallSite, ScriptFacts, own_returns
from .bindings import SemanticModel, semantic_model
from .config_dicts import (TABLE_ENTRY, ConfigLayer, NotLiteral, OptionLeaf, OptionNamespace, changes_in_order, dict_layers,
                           literal_leaf, overwritten, project_import, template_of, with_overwritten)
from .keyword_splats import CallKeywords, call_keywords, resolved
from .summary import summary_extractor
from .values import (UNKNOWN, argparse_defaults, argparse_options, argparse_source, argparse_takes_text, only_field_reads,
                     class_field_default, ConfigObjectRead, config_object_read, constant, env_accesses, factory_default, instance_field,
                     is_namespace, overridden_attribute, traced_constant)
from .worker_counts import CPU_COUNTS as _CPU_COUNTS, cpu_scaling, machine_field_default
from .option_defaults import option_default
from .cli_options import ParsedOptions, parsed_options
from .program_reach import scope_key
from .optimizer_builders import callable_optimizer, returned_optimizer

CPU_OPTIMIZERS = ("deepspeed.ops.adam.DeepSpeedCPUAdam", "deepspeed.ops.adam.cpu_adam.DeepSpeedCPUAdam",
                  "deepspeed.ops.adagrad.DeepSpeedCPUAdagrad", "deepspeed.ops.lion.DeepSpeedCPULion",
                  "deepspeed.ops.adam.ZenFlowCPUAdam")
HF_TRAINING_ARGS = ("transformers.TrainingArguments", "transformers.Seq2SeqTrainingArguments", "trl.SFTConfig",
                    "trl.DPOConfig", "trl.GRPOConfig")
DEEPSPEED_STRATEGY = ("lightning.pytorch.strategies.DeepSpeedStrategy", "lightning.fabric.strategies.DeepSpeedStrategy",
                      "lightning.fabric.strategies.deepspeed.DeepSpeedStrategy")
SPAWNERS = ("torch.multiprocessing.spawn", "torch.multiprocessing.start_processes",
            "accelerate.notebook_launcher")
PIPELINE_MODULES = ("deepspeed.pipe.PipelineModule", "deepspeed.runtime.pipe.PipelineModule",
                    "deepspeed.runtime.pipe.module.PipelineModule")
# Packages whose functions never build a config of the project (`json.load`, `deepspeed.*`): not a builder.
OMEGACONF_CONTAINERS = ("omegaconf.OmegaConf.to_container", "omegaconf.omegaconf.OmegaConf.to_container")
YAML_LOADS = ("yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load")  # (a dict of the document)
# deepspeed/__init__.py _add_core_arguments: the options `deepspeed.add_config_arguments` adds.
DEEPSPEED_CONFIG_OPTIONS = ("--deepspeed_config", "--deepscale_config")


@dataclass(frozen=True)
class ConfigRef:
    """Where a script takes its DeepSpeed config from.

    how: "literal" (a path written in the script), "argument" (a command-line option, maybe
    with a default), "env" (an environment variable), "dict" (a dict built in the script),
    "layered" (loaded files, imported constants and literal keys in program order: `layers`),
    "plugin" (accelerate's DeepSpeedPlugin(...) keywords), "class-field" (a field of an instance of
    another module's class kept at its default: `class_field`), "unknown".
    """

    how: str
    consumer: str  # deepspeed | hf | lightning | fabric | accelerate
    what: str  # "deepspeed.initialize(config=...)" for messages
    span: Span
    path: Optional[str] = None  # literal path (or the argument's default)
    options: tuple = ()  # command-line options that carry it: ("--config",)
    env: Optional[str] = None
    # A literal path built from command-line defaults (`f"configs/ds_zero{args.zero_stage}.json"`):
    # the options that would change it; a launch line that gives one leaves the path unknown.
    unless_options: tuple = ()
    value: Any = None  # the dict, when it is a literal (config_dicts.NotLiteral where a value is not)
    key_spans: tuple = ()  # ((key path), span of `"key": value`) of a dict written here
    # how="built": `get_ds_config(4)`, the function of the project (as called here) that returns the
    # dict, and the call's arguments (literals, config_dicts.NotLiteral otherwise): the linker evaluates it
    builder: Optional[str] = None
    arguments: tuple = ()
    keywords: tuple = ()  # ((name, value), ...)
    # how="imported": `config=DS_CONFIG` from `from conf import DS_CONFIG` (`builder` is the local name); the
    # key paths the script assigns in it afterwards, which are then not the constant's
    overwritten: tuple = ()
    # how="config-object": `config=cfg.deepspeed.config_path`, a leaf of an OmegaConf/Hydra YAML config
    # (values.ConfigObjectRead); the linker reads it (omegaconf_values.config_ref_path)
    config_read: Any = None
    # how="layered": a config built in program order from loaded files, imported constants and literal
    # keys (`cfg = json.load(f)` then `cfg.update(bf16={...})`, `{**BASE, "k": 8}`): config_dicts.ConfigLayer
    # each; the linker applies them in order (config_overlays.layered_config)
    layers: tuple = ()
    # how="plugin": `DeepSpeedPlugin(**BASE_KW)` with BASE_KW a dict of another module (keyword_splats.CallKeywords):
    # the linker resolves it (`resolved_plugin_ref`) into `keywords`
    splats: Any = None
    # how="class-field": (class as the script names it, field) of `deepspeed=cfg.deepspeed` with `cfg =
    # RunConfig()` of another module (`_Extractor.instance_default`); the linker reads the field's default
    class_field: Optional[tuple] = None
    # "yaml": the file is read with yaml.safe_load (or yaml.load, full_load): a YAML document, not JSON;
    # "node" (how="config-object"): the dict of an OmegaConf/Hydra node (`OmegaConf.to_container(cfg.deepspeed)`)
    loader: Optional[str] = None
    # the module the reference is written in when it is not the launched script's (a strategy factory of
    # another module): its builder and dict key spans are that module's
    origin: Optional[str] = None


_LOOPBACK = ("localhost", "127.0.0.1", "0.0.0.0", "::1")


def _is_super_init(node: ast.Call) -> bool:
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call) \
        and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"


@dataclass(frozen=True)
class ClientOptimizer:
    qualname: str  # torch.optim.AdamW; "" while `builder` is not resolved
    span: Span  # the constructor call
    keywords: tuple  # keyword names given
    where: str  # "deepspeed.initialize" | "configure_optimizers" | "script"
    builder: Optional[str] = None  # `build_optimizer` when an imported function builds it (the linker resolves it)
    path: Optional[str] = None  # the module holding the constructor, when not the script
    # a callable DeepSpeed calls to build it (optimizer_builders.py): "lambda", "def", "partial"; "" for the
    # optimizer itself; with `builder`, "passed": the imported function itself is given (`optimizer=make_optimizer`)
    how: str = ""


@dataclass(frozen=True)
class DeepSpeedInit:
    span: Span
    config: Optional[ConfigRef]
    optimizer: Optional[ClientOptimizer]  # a torch optimizer passed as optimizer=
    optimizer_given: bool  # optimizer= given at all (client optimizer of any kind)
    has_mpu: bool  # model/pipeline parallelism: the data-parallel size is not the world size
    # `model=` is a PipelineModule(num_stages=K) without a topology: DeepSpeed's data-parallel world is
    # world // K (pipe/module.py builds PipeDataParallelTopology(num_pp=K, num_dp=world // K)); None otherwise
    pipeline_stages: Optional[int] = None


@dataclass(frozen=True)
class LightningSite:
    kind: str  # trainer | fabric
    span: Span
    devices: Any  # literal value, "auto", or None when not literal
    devices_given: bool
    num_nodes: Optional[int]  # None: not literal
    strategy: Optional[str]  # registry string (as written)
    strategy_span: Optional[Span]
    strategy_class: Optional[str]  # DeepSpeedStrategy, DDPStrategy ... when an object is given
    strategy_kwargs: Optional[dict]  # literal keyword arguments of DeepSpeedStrategy(...)
    strategy_kwargs_complete: bool  # every keyword was a literal
    config: Optional[ConfigRef]
    cluster_environment: Optional[str]  # LightningEnvironment, SLURMEnvironment ... given as plugin
    # `devices=args.gpus`: the command-line options that set it; `devices` then holds their default,
    # which the linker replaces by the value a launch line passes.
    devices_options: tuple = ()
    # The module the call is in when it is not the script's: a factory function of another module
    # that builds and returns the Trainer (`make_trainer().fit(...)`); the linker sets it.
    path: Optional[str] = None
    # `DeepSpeedStrategy(**STRATEGY_KW)` with STRATEGY_KW a dict of another module (keyword_splats.CallKeywords):
    # the linker resolves it into `strategy_kwargs` (`resolved_lightning_site`)
    strategy_splats: Any = None
    # `num_nodes=args.nodes`: `num_nodes` holds the default of these options; the linker reads the launch
    # line (option_defaults.launched_int; `num_nodes_direct`: the option itself, not a value computed from it)
    num_nodes_options: tuple = ()
    num_nodes_direct: bool = False
    # `devices=s.devices` / `num_nodes=s.num_nodes` of an instance of another module's class kept at its
    # defaults (`s = FabricSettings()`): (class, field); the linker reads the default (link._class_default)
    devices_field: Optional[tuple] = None
    num_nodes_field: Optional[tuple] = None
    # `strategy=make_strategy()`, a function of another module: the name as called; the linker reads what it
    # returns (ScriptSetupFacts.returned_strategies of that module)
    strategy_builder: Optional[str] = None


@dataclass(frozen=True)
class Spawn:
    span: Span
    what: str
    nprocs: Optional[int]
    conditional: bool = False  # under an `if` other than `__name__ == "__main__"`


@dataclass(frozen=True)
class EnvDeviceIndex:
    """A `torch.cuda.set_device(i)` whose index the script takes from environment variables only
    (through bindings: `local_rank = int(os.environ.get("LOCAL_RANK", 0))`).

    `keys` are the variables the index reads, in source order; `unset_index` is the index when none
    of them is set (their defaults), None when that is not a constant (a read without a default
    raises KeyError)."""

    span: Span  # the set_device call
    read_span: Span  # the first environment read the index goes through
    keys: tuple
    unset_index: Optional[int]
    function: Optional[str] = None  # the top-level function of the module it is in (None: elsewhere)
    # `set_device(args.local_rank)` with `--local_rank` defaulting to the environment read: the read counts
    # only when the launch line passes none of these options (the linker checks)
    unless_options: tuple = ()


@dataclass(frozen=True)
class LoaderWorkers:
    span: Span  # the num_workers value
    value: Optional[int]  # literal (or the default of a config class of this module)
    per_machine: bool  # os.cpu_count() / multiprocessing.cpu_count() / psutil.cpu_count()
    # `num_workers=cfg.num_workers` with `cfg` an instance of a class another module defines,
    # keeping the field's default: (class as written here, field); the linker reads the default.
    class_default: Optional[tuple] = None
    # `num_workers=args.num_workers`: `value` is the default of these command-line options, which a
    # launch line that passes one replaces.
    unless_options: tuple = ()
    # the count is the loader's own (a literal, the CPU count, a module constant: no parameter, option
    # or config field), so it holds wherever the enclosing function runs; and that function's
    # References key (None: module level or nested), for a loader a factory of an imported module builds
    fixed: bool = False
    scope: Optional[str] = None
    # `opts = dict(LOADER_DEFAULTS); opts.update(overrides); DataLoader(ds, **opts)` in `make_loader(ds,
    # **overrides)`: the count is the module dict's unless a caller passes num_workers (the function's name)
    unless_callers_pass: Optional[str] = None
    # `num_workers=cfg.workers` where `cfg` is a parameter of a module-level function that only reads its
    # attributes: (function, position, parameter, field); the linker reads the instance its callers pass
    param_field: Optional[tuple] = None
    # `num_workers=cfg["data"]["num_workers"]` of a YAML/OmegaConf config the script loads: the leaf, which
    # the linker reads in the file each launch names (omegaconf_values.setup_read_value)
    config_read: Optional[ConfigObjectRead] = None


@dataclass(frozen=True)
class PortLiteral:
    span: Span
    port: int
    how: str  # "os.environ['MASTER_PORT'] = ..." | "init_method tcp://" | ...


@dataclass(frozen=True)
class WeightSave:
    span: Span
    what: str  # save_16bit_model | trainer.save_model | accelerator.get_state_dict | state_dict


# transformers/training_args.py (commit 00349ae87eddc872ffa21a8a54f264375a0056a8): the defaults of
# the TrainingArguments fields that HfTrainerDeepSpeedConfig.trainer_config_process compares with
# the DeepSpeed config (integrations/deepspeed.py). Seq2SeqTrainingArguments inherits them; trl's
# configs change some (SFTConfig's learning_rate, bf16), so only the keywords they are given count.
HF_TRAINING_ARGS_DEFAULTS = {
    "per_device_train_batch_size": 8, "gradient_accumulation_steps": 1, "max_grad_norm": 1.0,
    "learning_rate": 5e-5, "adam_beta1": 0.9, "adam_beta2": 0.999, "adam_epsilon": 1e-8, "weight_decay": 0.0,
    "fp16": False, "fp16_full_eval": False, "bf16": False, "bf16_full_eval": False, "fp16_backend": "auto",
    "auto_find_batch_size": False, "warmup_steps": 0, "parallelism_config": None,
}
HF_DEFAULTS_FROM = ("transformers.TrainingArguments", "transformers.Seq2SeqTrainingArguments")


@dataclass(frozen=True)
class HfTrainingArgs:
    """One `TrainingArguments(...)` (or Seq2SeqTrainingArguments, trl's configs): the fields the HF
    DeepSpeed integration compares with the config, as far as the script shows them.

    `known` maps a field to (value, span of the `name=value` keyword) for keywords whose value is a
    constant of the script (a literal, a module constant, a name bound once); `unknown` names the
    fields given a value dslint cannot tell (a parameter, a command-line option, a field assigned
    after the call). With `open` (`**kwargs`, positional arguments) the fields not given are unknown
    too; with `defaults` they have transformers' defaults (HF_TRAINING_ARGS_DEFAULTS).
    """

    qualname: str
    span: Span  # the call
    config_span: Optional[Span]  # the `deepspeed=` value: the span of its ConfigRef
    known: dict
    unknown: tuple
    open: bool
    defaults: bool
    # (field, class, class field, span of the keyword) of keywords given a field of an instance of another
    # module's class left at its default (`per_device_train_batch_size=cfg.batch_size`, `cfg = RunConfig()`):
    # unknown until the linker reads the class's default (`with_class_defaults`)
    class_fields: tuple = ()
    # (field, local name, span of the keyword) of keywords given a constant of a project module
    # (`per_device_train_batch_size=S.PER_DEVICE_BATCH`, `from settings import GRAD_ACCUM`): unknown until the
    # linker reads that module's constant (`with_imported_constants`)
    imported_fields: tuple = ()

    def value(self, name: str) -> tuple[Any, Optional[Span]]:
        """(value, span of its keyword or None for a default) of a field; (UNKNOWN, None) when the
        script does not tell."""
        if name in self.known:
            return self.known[name]
        if name in self.unknown or self.open or not self.defaults or name not in HF_TRAINING_ARGS_DEFAULTS \
                or any(entry[0] == name for entry in (*self.class_fields, *self.imported_fields)):
            return UNKNOWN, None
        return HF_TRAINING_ARGS_DEFAULTS[name], None

    def with_class_defaults(self, default: Callable[[str, str], Any]) -> "HfTrainingArgs":
        """This call with its class fields known where `default(class, field)` gives a literal (else
        UNKNOWN: the field stays unknown)."""
        known = dict(self.known)
        for name, klass, attr, span in self.class_fields:
            value = default(klass, attr)
            if value is not UNKNOWN:
                known[name] = (value, span)
        return dataclasses.replace(self, known=known)

    def with_imported_constants(self, lookup: Callable[[str], Any]) -> "HfTrainingArgs":
        """This call with its imported fields known where `lookup(local name)` gives a constant (None: unknown)."""
        known = dict(self.known)
        for name, local, span in self.imported_fields:
            value = lookup(local)
            if value is not None:
                known[name] = (value, span)
        return dataclasses.replace(self, known=known)


@dataclass
class ScriptSetupFacts:
    deepspeed_inits: list[DeepSpeedInit] = field(default_factory=list)
    config_refs: list[ConfigRef] = field(default_factory=list)
    client_optimizers: list[ClientOptimizer] = field(default_factory=list)
    cpu_optimizer: bool = False  # DeepSpeedCPUAdam & co. built in the script
    hf_trainer: bool = False
    hf_args_from_command_line: bool = False  # HfArgumentParser: `--deepspeed x.json` reaches TrainingArguments
    # `HfArgumentParser(TrainingArguments).parse_json_file(sys.argv[1])`: (the argv index, "json"/"yaml",
    # the span of the call, under a test of sys.argv); the linker (facts/hf_args_file.py) reads `deepspeed`
    # of the args file the launch line names there.
    hf_args_file: Optional[tuple] = None
    hf_lr_scheduler: Optional[str] = None  # TrainingArguments(lr_scheduler_type=...)
    hf_training_args: list[HfTrainingArgs] = field(default_factory=list)
    accelerate: bool = False
    lightning: list[LightningSite] = field(default_factory=list)
    lightning_optimizers: list[ClientOptimizer] = field(default_factory=list)  # in configure_optimizers
    spawns: list[Spawn] = field(default_factory=list)
    loader_workers: list[LoaderWorkers] = field(default_factory=list)
    env_device_indexes: list[EnvDeviceIndex] = field(default_factory=list)
    # `torch.cuda.set_device(rt.local_rank)` with `rt = Runtime()` of another module's class left at the
    # field's default: (the class as written here, the field); the linker reads the class's module's `env_fields`
    class_env_device_indexes: list = field(default_factory=list)
    # "Class.field" -> EnvDeviceIndex (span: the field's line) of a module-level dataclass whose field defaults to
    # `field(default_factory=lambda: int(os.environ.get("LOCAL_RANK", 0)))`: the environment read alone
    env_fields: dict = field(default_factory=dict)
    # `torch.cuda.set_device(args.local_rank)` in a top-level function whose positional parameter `args` a
    # caller fills with its argparse namespace: (function, position, attribute)
    param_device_indexes: list = field(default_factory=list)
    # the calls of imported names that pass this module's argparse namespace: (local name called, position)
    namespace_calls: list = field(default_factory=list)
    # dest -> EnvDeviceIndex (unless_options: the option's strings) of each option whose default reads the
    # environment alone (`--local_rank`, default `int(os.environ.get("LOCAL_RANK", 0))`)
    option_env_indexes: dict = field(default_factory=dict)
    ports: list[PortLiteral] = field(default_factory=list)
    # spans of MASTER_PORT sets beside a MASTER_ADDR the job computes (a hostfile's first host): the port
    # the nodes of a multi-node job agree on, by design
    agreed_ports: list = field(default_factory=list)
    # function -> (Span, class, keywords, complete, config ConfigRef, splats) of the DeepSpeedStrategy it returns
    returned_strategies: dict = field(default_factory=dict)
    saves: list[WeightSave] = field(default_factory=list)
    # `json.dump(zero2_offload(...), f)` into `open(path, "w")`: (the path as written, or the default of the
    # option that gives it; that option's strings; ConfigRef of the dict, its command-line values OptionLeafs):
    # a DeepSpeed config this script generates
    dumped_configs: list = field(default_factory=list)
    argparse_options: dict = field(default_factory=dict)  # option string -> (dest, default)
    env_sets: dict = field(default_factory=dict)  # NAME -> (literal value or None, Span), set in the script
    sets_num_threads: bool = False  # torch.set_num_threads(...) in the script
    # helper_setups.HelperCall of each call of an imported project name, when the script builds no DeepSpeed
    # setup of its own (a helper of another module may: `build_engine(model, args)`, `build_accelerator()`)
    helper_calls: tuple = ()
    # every option the script's own argparse parser takes, when all are in sight (facts/cli_options.py)
    parsed_options: Optional[ParsedOptions] = None
    parses_args: bool = False  # it parses a command line itself (parse_args, parse_known_args, HfArgumentParser...)

    @property
    def uses_deepspeed(self) -> bool:
        return bool(self.deepspeed_inits or self.config_refs)


def _literal(node: Optional[ast.AST]):
    if node is None:
        return UNKNOWN
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN


class _Extractor:
    def __init__(self, facts: ScriptFacts):
        self.f = facts
        self.out = ScriptSetupFacts()

    @property
    def model(self) -> SemanticModel:
        return semantic_model(self.f)  # built on first use, cached on the facts

    def span(self, node: ast.AST) -> Span:
        return self.f.lines.span_of_node(node)

    def known(self, expr: Optional[ast.AST]) -> Any:
        """The constant `expr` evaluates to (a literal, a module constant, a name bound once, an
        f-string of known parts), or UNKNOWN; also UNKNOWN when it goes through a command-line
        option, whose default a launch line may override."""
        if expr is None:
            return UNKNOWN
        value = _literal(expr)
        if value is not UNKNOWN:
            return value
        if _reads_command_line(self.model, expr):
            return UNKNOWN
        traced = traced_constant(self.model, expr)
        return UNKNOWN if traced.options else traced.value  # (a click option's default, too)

    # -- argparse --------------------------------------------------------------------------
    def read_argparse(self) -> None:
        self.out.parsed_options = parsed_options(self.f)
        self.out.parses_args = "parse_" in self.f.text and any(
            (site.attr or "").startswith("parse_") for site in self.f.calls if isinstance(site.node.func, ast.Attribute))
        if self.f.method_calls("add_argument"):
            model = self.model
            for dest, default in argparse_defaults(model).items():
                value = self.known(default) if default is not None else None
                for option in argparse_options(model, dest):
                    self.out.argparse_options.setdefault(option, (dest, value if isinstance(value, str) else None))
        # `add_argument` on a parser the values layer does not see as one (built in another module,
        # `parser = make_parser()`): read its literal options as they are written.
        for site in self.f.method_calls("add_argument"):
            strings = [_literal(a) for a in site.node.args]
            options = [s for s in strings if isinstance(s, str) and s.startswith("-")]
            if not options or all(o in self.out.argparse_options for o in options):
                continue
            dest = _literal(site.keyword("dest"))
            if not isinstance(dest, str):
                longs = [o for o in options if o.startswith("--")]
                dest = (longs[0] if longs else options[0]).lstrip("-").replace("-", "_")
            default = _literal(site.keyword("default"))
            for option in options:
                self.out.argparse_options.setdefault(option, (dest, default if isinstance(default, str) else None))
        if self.f.calls_to("deepspeed.add_config_arguments"):
            for option in DEEPSPEED_CONFIG_OPTIONS:
                self.out.argparse_options.setdefault(option, ("deepspeed_config", None))

    def options_for(self, dest: str) -> tuple[tuple, Optional[str]]:
        options = tuple(o for o, (d, _) in self.out.argparse_options.items() if d == dest)
        defaults = [default for o, (d, default) in self.out.argparse_options.items() if d == dest and default]
        return options, (defaults[0] if defaults else None)

    # -- following a value -------------------------------------------------------------------
    def config_ref(self, expr: ast.AST, consumer: str, what: str, depth: int = 0) -> ConfigRef:
        span = self.span(expr)
        value = _literal(expr)
        if isinstance(value, str):
            return ConfigRef("literal", consumer, what, span, path=value)
        if isinstance(expr, ast.Dict):
            found = template_of(expr, self.f.lines, lambda leaf: literal_leaf(leaf, self.known, unknown=UNKNOWN,
                                                                              model=self.model),
                                merged=self.unchanged_dict)
            if found is not None:
                return ConfigRef("dict", consumer, what, span, value=found.value, key_spans=found.spans)
            layered = self.layered(expr, None, consumer, what)  # `{**BASE, "train_micro_batch_size_per_gpu": 8}`
            if layered is not None:
                return layered
            return ConfigRef("dict", consumer, what, span, value=value if isinstance(value, dict) else None)
        returned = self.returned_layers(expr, consumer, what) if depth == 0 else None
        if returned is not None:
            return returned  # `config=load_cfg()`, a function of the script that loads and updates one
        built = self.built_by_call(expr, consumer, what)
        if built is not None:
            return built
        read = config_object_read(self.model, expr)
        if read is not None:
            return ConfigRef("config-object", consumer, what, span, config_read=read)
        if isinstance(expr, ast.Call) and (self.f.callee_name(expr) or "") in OMEGACONF_CONTAINERS and expr.args:
            read = config_object_read(self.model, expr.args[0])  # `OmegaConf.to_container(cfg.deepspeed)`
            if read is not None:
                return ConfigRef("config-object", consumer, what, span, config_read=read, loader="node")
        name = dotted(expr)
        if name and "." in name:
            head, attr = name.rsplit(".", 1)
            options, default = self.options_for(attr)
            if options:
                return ConfigRef("argument", consumer, what, span, path=default, options=options)
        beside = self.beside_script(expr)
        if beside is not None:
            # os.path.join(os.path.dirname(__file__), "ds", "zero2.json"): next to the script
            return ConfigRef("literal", consumer, what, span, path=beside)
        if not isinstance(expr, ast.Name):
            found = self.known(expr)  # f"{CONFIG_DIR}/zero2.json", "configs/" + NAME
            if isinstance(found, str):
                return ConfigRef("literal", consumer, what, span, path=found)
            templated = self.from_option_defaults(expr)
            if templated is not None:
                path, options = templated
                return ConfigRef("literal", consumer, what, span, path=path, unless_options=options)
        if isinstance(expr, ast.Attribute):
            value, other = self.instance_default(expr)
            if isinstance(value, str) and value:
                return ConfigRef("literal", consumer, what, span, path=value)
            if other is not None:
                return ConfigRef("class-field", consumer, what, span, class_field=other)
        access = self.env_access(expr)
        if access is not None and access.key:  # (`os.environ.get("DS_CONFIG", "ds.json")`: the default unless set)
            default = _literal(access.default) if access.default is not None else None
            return ConfigRef("env", consumer, what, span, path=default if isinstance(default, str) else None,
                             env=access.key)
        if isinstance(expr, ast.Call):
            # json.load(open(path)) / hjson.load / yaml: follow the path argument
            inner = expr.args[0] if expr.args else None
            if isinstance(inner, ast.Name):  # `with open(path) as f: cfg = json.load(f)`
                opened = self.model.binding_of(inner)
                if opened is not None and opened.kind == "with":
                    inner = opened.context
            if isinstance(inner, ast.Call) and getattr(inner.func, "id", "") == "open" and inner.args:
                ref = self.config_ref(inner.args[0], consumer, what, depth + 1)
                loader = "yaml" if (self.f.callee_name(expr) or "") in YAML_LOADS else None
                return ConfigRef(ref.how, consumer, what, span, ref.path, ref.options, ref.env, loader=loader)
        imported = self.imported_constant(expr, consumer, what)
        if imported is not None:
            return imported
        if isinstance(expr, (ast.Name, ast.Attribute)) and depth < 3:
            # the values of every binding that reaches the use (a parameter that shadows a
            # module constant reaches it, and is unknown)
            leaves = self.model.values_of(expr)
            layered = self.layered(leaves[0], expr, consumer, what) if len(leaves) == 1 and depth == 0 \
                and isinstance(expr, ast.Name) else None
            if layered is not None:
                return layered
            if leaves and all(leaf is not expr for leaf in leaves):
                refs = [self.config_ref(leaf, consumer, what, depth + 1) for leaf in leaves]
                if all(_same_source(r, refs[0]) for r in refs):
                    if refs[0].how == "dict" and isinstance(refs[0].value, dict):
                        return self.dict_as_used(expr, leaves, refs[0])
                    if refs[0].how == "literal" and isinstance(leaves[0], ast.Call) and self.changed_after_load(expr, leaves):
                        return ConfigRef("unknown", consumer, what, span)  # `cfg = json.load(f); cfg["x"] = ...`
                    return refs[-1]  # assigned in branches to different values: unknown
        return ConfigRef("unknown", consumer, what, span)

    def layered(self, value: ast.AST, use: Optional[ast.Name], consumer: str, what: str) -> Optional[ConfigRef]:
        """The config `use` reads (or the dict literal `value` itself, `use` None) as layers in program
        order, when that is more than a dict literal the "dict" reading shows: a loaded file or an imported
        constant changed by literal keys, a dict changed by `update(...)`, `{**BASE, "k": v}`. None when
        something the files do not show may change it (config_dicts.changes_in_order)."""
        if not isinstance(value, ast.Dict) and not (isinstance(value, ast.Call) and use is not None):
            return None
        if isinstance(value, ast.Call) and "load" not in (dotted(value.func) or ""):
            return None  # (only configs loaded from a file: `json.load`, `yaml.safe_load`)
        leaf = self.layer_leaf
        if use is None:
            layers = dict_layers(value, (), self.f.lines, leaf, self.splat)
        else:
            binding = self.model.binding_of(use)
            if binding is None or binding.kind != "assignment" or binding.value is not value:
                return None
            base = dict_layers(value, (), self.f.lines, leaf, self.splat) if isinstance(value, ast.Dict) \
                else self.splat(value, ())
            changes = changes_in_order(self.model, binding, use, self.f.lines, leaf, self.splat) \
                if base is not None else None
            if changes is None or (not changes and isinstance(value, ast.Dict)
                                   and all(layer.kind == "keys" for layer in base)):
                return None  # a plain dict literal: the "dict" reading has it
            if not changes and isinstance(value, ast.Call):
                return None  # the file as it is: a "literal" reference
            layers = base + changes
        if layers is None or not any(layer.kind != "keys" for layer in layers) and use is None:
            return None
        return ConfigRef("layered", consumer, what, self.span(use if use is not None else value), layers=tuple(layers))

    def returned_layers(self, expr: ast.AST, consumer: str, what: str) -> Optional[ConfigRef]:
        """`load_cfg()`, a function of this script whose one `return cfg` returns a config built in program
        order in it (`layered`); its parameters, if any leaf reads one, are values the files do not show."""
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Name):
            return None
        binding = self.model.binding_of(expr.func)
        function = binding.node if binding is not None and binding.kind == "def" else None
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        returns = own_returns(function)
        if len(returns) != 1 or not isinstance(returns[0].value, ast.Name):
            return None
        use = returns[0].value
        leaves = self.model.values_of(use)
        found = self.layered(leaves[0], use, consumer, what) if len(leaves) == 1 else None
        return dataclasses.replace(found, span=self.span(expr)) if found is not None else None

    def layer_leaf(self, expr: ast.AST):
        found = literal_leaf(expr, self.known, unknown=UNKNOWN, model=self.model)
        if type(found) is NotLiteral:  # `{"enabled": args.bf16}`: the default, unless the launch line passes it
            default = option_default(self.model, expr)
            if default is not None and isinstance(default.value, (bool, int, float, str)):
                # (`--no-bf16` of a BooleanOptionalAction sets it too)
                options = default.options + tuple(f"--no-{o[2:]}" for o in default.options if o.startswith("--"))
                return OptionLeaf(found.what, default.value, options)
        return found

    def splat(self, expr: ast.AST, holder: tuple) -> Optional[list]:
        """What `**expr` (or `update(expr)`) merges at `holder`: a config file loaded unchanged
        (`json.load(f)`), a module constant of the project imported unchanged, a dict literal bound once and
        unchanged; None otherwise."""
        if isinstance(expr, ast.Call):
            if "load" not in (dotted(expr.func) or ""):
                return None
            ref = self.config_ref(expr, "", "")
            if ref.how == "argument" and ref.path:  # `json.load(open(args.ds))`: its default, or the launch's
                return [ConfigLayer("file", holder, source=ref.path, options=ref.options)]
            return [ConfigLayer("file", holder, source=ref.path)] if ref.how == "literal" and ref.path \
                and not ref.unless_options else None
        if not isinstance(expr, ast.Name):
            return None
        imported = self.imported_constant(expr, "", "")
        if imported is not None:
            return [ConfigLayer("constant", holder, source=expr.id)] if imported.how == "imported" \
                and not imported.overwritten else None
        literal = self.unchanged_dict(expr)
        if literal is not None:
            found = template_of(literal, self.f.lines, self.layer_leaf, merged=self.unchanged_dict)
            return [ConfigLayer("keys", holder, found.value, found.spans)] if found is not None else None
        binding = self.model.binding_of(expr)
        if binding is not None and binding.kind == "assignment" and isinstance(binding.value, ast.Call) \
                and self.model.values_of(expr) == [binding.value] and overwritten(self.model, binding, expr) == []:
            return self.splat(binding.value, holder)  # `extra = json.load(f)` ... `cfg.update(extra)`
        return None

    def unchanged_dict(self, expr: ast.AST) -> Optional[ast.Dict]:
        """The dict literal a name is bound to once and that nothing changes (`**BASE` in a config)."""
        if not isinstance(expr, ast.Name):
            return None
        binding = self.model.binding_of(expr)
        if binding is None or binding.kind != "assignment" or not isinstance(binding.value, ast.Dict):
            return None
        if self.model.values_of(expr) != [binding.value] or overwritten(self.model, binding, expr) != []:
            return None
        return binding.value

    def changed_after_load(self, expr: ast.AST, leaves: list) -> bool:
        """Is the dict a config file was loaded into (`cfg = json.load(f)`) changed before it is used, or
        may it be (a key assigned, `update()`, passed to a function)? Then the file is not the config."""
        binding = self.model.binding_of(expr) if isinstance(expr, ast.Name) else None
        if binding is None or len(leaves) != 1 or binding.value is not leaves[0]:
            return True
        return overwritten(self.model, binding, expr) != []

    def dict_as_used(self, expr: ast.AST, leaves: list, ref: ConfigRef) -> ConfigRef:
        """A dict literal bound to the name the config is given as: the keys the module assigns afterwards
        (`ds_config["train_batch_size"] = ...`) are not the literal's; unknown when it may change otherwise."""
        binding = self.model.binding_of(expr) if isinstance(expr, ast.Name) else None
        paths = overwritten(self.model, binding, expr) if binding is not None and binding.value is leaves[0] \
            and len(leaves) == 1 else None
        if paths is None:
            return ConfigRef("dict", ref.consumer, ref.what, ref.span)
        return dataclasses.replace(ref, value=with_overwritten(ref.value, paths)) if paths else ref

    def imported_constant(self, expr: ast.AST, consumer: str, what: str) -> Optional[ConfigRef]:
        """`config=DS_CONFIG` with `from conf import DS_CONFIG` (a module of the project): for the linker to
        read from that module's summary (`config_constants`). `config=PRESETS[args.preset]` of an imported
        table of configs reads what its entries share (`config_dicts.TABLE_ENTRY`)."""
        entry = ""
        whole = expr
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and isinstance(expr.ctx, ast.Load):
            expr, entry = expr.value, TABLE_ENTRY
        if isinstance(expr, ast.Attribute) and not entry:  # `config=S.DS_CONFIG` of `from sft import settings as S`
            module = self.model.binding_of(expr.value) if isinstance(expr.value, ast.Name) else None
            if module is None or module.kind not in ("import", "from-import") or self.library_binding(module):
                return None
            if any(dotted(store.value) == expr.value.id for store in self.model.attribute_stores(expr.attr)):
                return ConfigRef("unknown", consumer, what, self.span(expr))  # `S.DS_CONFIG = args.ds` here
            return ConfigRef("imported", consumer, what, self.span(expr), builder=dotted(expr))
        binding = self.model.binding_of(expr) if isinstance(expr, ast.Name) else None
        if binding is None or binding.kind != "from-import" or self.library_binding(binding):
            return None
        paths = overwritten(self.model, binding, expr)
        if paths is None or (entry and paths):
            return ConfigRef("unknown", consumer, what, self.span(whole))  # the script may change it
        return ConfigRef("imported", consumer, what, self.span(whole), builder=expr.id + entry,
                         overwritten=tuple(paths))

    @staticmethod
    def library_binding(binding) -> bool:
        """An import binding of a library (`import json`), not of a project module (relative imports are)."""
        qualname = binding.qualname or ""
        return not qualname.startswith(".") and is_library(qualname.split(".")[0])

    def built_by_call(self, expr: ast.AST, consumer: str, what: str) -> Optional[ConfigRef]:
        """`get_ds_config(4, stage=3)`, a function of the project (imported or defined here): the call, for the
        linker to evaluate with the function's summary (`returns_config`)."""
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, (ast.Name, ast.Attribute)):
            return None
        root = root_name(expr.func)
        binding = self.model.binding_of(root) if root is not None else None
        if binding is None or binding.kind not in ("import", "from-import", "def"):
            return None
        top = (binding.qualname or "").split(".")[0]
        if binding.kind != "def" and is_library(top):
            return None
        if any(isinstance(a, ast.Starred) for a in expr.args) or any(k.arg is None for k in expr.keywords):
            return None  # which parameters the call binds is not known

        def value(arg: ast.AST):
            if isinstance(arg, ast.Name) and is_namespace(self.model, arg):
                return self.option_namespace(arg)  # `get_ds_config(args)`: its fields are the options' defaults
            return literal_leaf(arg, self.known, unknown=UNKNOWN)

        return ConfigRef("built", consumer, what, self.span(expr), builder=dotted(expr.func),
                         arguments=tuple(value(a) for a in expr.args),
                         keywords=tuple((k.arg, value(k.value)) for k in expr.keywords))

    def option_namespace(self, name: ast.Name) -> OptionNamespace:
        """The OptionNamespace of `name`, a `parse_args()` namespace of this module."""
        entries = []
        for dest, default in argparse_defaults(self.model).items():
            if default is None or overridden_attribute(self.model, ast.Attribute(value=name, attr=dest, ctx=ast.Load())):
                continue
            value = _literal(default)
            options = argparse_options(self.model, dest)
            if options and isinstance(value, (bool, int, float, str)):
                entries.append((dest, value, options, argparse_takes_text(self.model, dest)))
        return OptionNamespace(tuple(entries))

    def beside_script(self, expr: ast.AST, depth: int = 0) -> Optional[str]:
        """The relative path of `os.path.join(<the script's folder>, "ds", "zero2.json")` or
        `Path(__file__).parent / "configs" / "zero2.json"` (also through names bound once:
        `CONFIGS = Path(__file__).parent / "configs"`), whose folder part is written with
        `__file__`; else None."""
        if depth > 4:
            return None
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "str" \
                and len(expr.args) == 1 and not expr.keywords:
            expr = expr.args[0]
        parts: list = []
        base = expr
        if isinstance(expr, ast.Call) and (self.f.callee_name(expr) or "") in ("os.path.join", "posixpath.join") \
                and len(expr.args) > 1 and not any(isinstance(a, ast.Starred) for a in expr.args):
            base, parts = expr.args[0], list(expr.args[1:])
        else:
            while isinstance(base, ast.BinOp) and isinstance(base.op, ast.Div):
                parts.insert(0, base.right)
                base = base.left
        if not parts:
            return None
        texts = [self.known(p) for p in parts]
        if not all(isinstance(t, str) and t for t in texts):
            return None
        if "__file__" not in ast.unparse(base):
            values = [v for v in self.model.values_of(base) if v is not base]
            folder = self.beside_script(values[0], depth + 1) if len(values) == 1 else None
            if folder is not None:
                texts.insert(0, folder)
            elif not any("__file__" in ast.unparse(v) for v in values):
                return None
        return "/".join(texts)

    def env_read(self, expr: ast.AST) -> Optional[str]:
        """The variable `expr` reads from the environment (`os.environ["K"]`, `.get`, `getenv`)."""
        access = self.env_access(expr)
        return access.key if access is not None else None

    def env_access(self, expr: ast.AST):
        """The EnvAccess (a read) that `expr` is, else None."""
        if not isinstance(expr, (ast.Subscript, ast.Call)):
            return None
        return next((a for a in env_accesses(self.model) if a.node is expr and a.kind == "read"), None)

    def optimizer_of(self, expr: Optional[ast.AST], where: str, depth: int = 0) -> Optional[ClientOptimizer]:
        """The torch.optim constructor behind an `optimizer=` argument, when the script shows it."""
        if expr is None:
            return None
        if isinstance(expr, ast.Call):
            qualname = self.f.callee_name(expr)
            if qualname and qualname.startswith("torch.optim.") and qualname.count(".") == 2:
                return ClientOptimizer(qualname, self.span(expr), tuple(k.arg for k in expr.keywords if k.arg), where)
            built = callable_optimizer(self.model, expr) if where == "deepspeed.initialize" else None
            if built is not None:  # `functools.partial(torch.optim.AdamW, ...)`, a factory of the script
                return ClientOptimizer(built.qualname, self.span(built.node), built.keywords, where, how=built.how)
            made = returned_optimizer(self.model, expr) if where == "deepspeed.initialize" else None
            if made is not None:  # `make_optimizer(model)`, a def of the script returning the constructor
                return ClientOptimizer(self.model.resolve(made.func), self.span(made),
                                       tuple(k.arg for k in made.keywords if k.arg), where)
            root = root_name(expr.func)
            binding = self.model.binding_of(root) if root is not None else None
            if binding is not None and binding.kind in ("import", "from-import") and not (qualname or "").startswith(
                    ("torch.", "deepspeed.", "transformers.", "accelerate.")):
                return ClientOptimizer("", self.span(expr), (), where, builder=dotted(expr.func))
        if where == "deepspeed.initialize":  # DeepSpeed calls a callable with the parameters
            built = callable_optimizer(self.model, expr)
            if built is not None:
                return ClientOptimizer(built.qualname, self.span(built.node), built.keywords, where, how=built.how)
            root = root_name(expr) if isinstance(expr, (ast.Name, ast.Attribute)) and depth == 0 else None
            binding = self.model.binding_of(root) if root is not None else None
            if binding is not None and binding.kind in ("import", "from-import") and dotted(expr) and \
                    not is_library(self.model.resolve(expr) or binding.qualname or ""):
                return ClientOptimizer("", self.span(expr), (), where, builder=dotted(expr), how="passed")
        if isinstance(expr, ast.Call):
            return None
        if isinstance(expr, ast.Name) and depth < 3:
            leaves = self.model.values_of(expr)
            if not leaves or any(leaf is expr for leaf in leaves):
                return None
            found = [self.optimizer_of(leaf, where, depth + 1) for leaf in leaves]
            # `opt = DeepSpeedCPUAdam(...) if cpu else torch.optim.AdamW(...)` in two branches: unknown
            if all(found):
                return found[-1]
        return None

    # -- frameworks ----------------------------------------------------------------------------
    def read_deepspeed(self) -> None:
        for site in self.f.calls_to("deepspeed.initialize"):
            config = site.keyword("config") or site.keyword("config_params")
            ref = None
            if config is not None:
                ref = self.config_ref(config, "deepspeed", "deepspeed.initialize(config=...)")
            elif site.keyword("args") is not None or "deepspeed_config" in {d for d, _ in self.out.argparse_options.values()}:
                options, default = self.options_for("deepspeed_config")
                if options:
                    ref = ConfigRef("argument", "deepspeed", "args.deepspeed_config", self.span(site.node),
                                    path=default, options=options)
            optimizer_arg = site.keyword("optimizer")
            init = DeepSpeedInit(self.span(site.node), ref,
                                 self.optimizer_of(optimizer_arg, "deepspeed.initialize"),
                                 optimizer_arg is not None and _literal(optimizer_arg) is not None,
                                 site.keyword("mpu") is not None, self.pipeline_stages(site.argument(1, "model")))
            self.out.deepspeed_inits.append(init)
            if ref is not None:
                self.out.config_refs.append(ref)
        for qual in CPU_OPTIMIZERS:
            if self.f.calls_to(qual):
                self.out.cpu_optimizer = True

    def read_helper_calls(self) -> None:
        """HelperCalls, for a script whose config a helper may build (see ScriptSetupFacts.helper_calls)."""
        from .helper_setups import helper_calls

        if self.out.deepspeed_inits or self.out.config_refs or self.out.accelerate or self.out.hf_trainer \
                or self.out.lightning:
            return
        self.out.helper_calls = helper_calls(self.f, lambda: self.model, namespaces=bool(self.out.argparse_options))

    def pipeline_stages(self, model: Optional[ast.AST]) -> Optional[int]:
        """K of `model=net` with `net = PipelineModule(layers, num_stages=K)` (its one value), K a constant
        of the script and no `topology=` (which would set the stages and the data-parallel size itself)."""
        values = self.model.values_of(model) if isinstance(model, ast.Name) else [model] if model is not None else []
        call = values[0] if len(values) == 1 else None
        if not isinstance(call, ast.Call) or self.f.callee_name(call) not in PIPELINE_MODULES:
            return None
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) \
                or len(call.args) > 2 or any(k.arg == "topology" for k in call.keywords):
            return None
        stages = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "num_stages"),
                                                               None)
        value = self.known(stages)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    def read_hf(self) -> None:
        subclasses = local_subclasses(self.f, HF_TRAINERS)  # `class MyTrainer(Trainer)`, then `MyTrainer(...)`
        self.out.hf_trainer = bool(self.f.calls_to(*HF_TRAINERS)) or any(
            isinstance(site.node.func, ast.Name) and site.node.func.id in subclasses for site in self.f.calls)
        self.out.hf_args_from_command_line = bool(self.f.calls_to("transformers.HfArgumentParser"))
        self.out.accelerate = bool(self.f.calls_to("accelerate.Accelerator"))
        for site in self.f.calls_to("transformers.HfArgumentParser"):
            ref = self.hf_parsed_config(site)
            if ref is not None:
                self.out.config_refs.append(ref)
        if self.out.hf_args_from_command_line:
            self.out.hf_args_file = self.hf_args_file()
        for site in self.f.calls_to(*HF_TRAINING_ARGS):
            value = site.keyword("deepspeed")
            ref = None
            if value is not None:
                ref = self.config_ref(value, "hf", "TrainingArguments(deepspeed=...)")
                self.out.config_refs.append(ref)
            scheduler = _literal(site.keyword("lr_scheduler_type"))
            if isinstance(scheduler, str):
                self.out.hf_lr_scheduler = scheduler
            self.out.hf_training_args.append(self.hf_training_args(site, ref))
        for site in self.f.calls_to("accelerate.utils.DeepSpeedPlugin", "accelerate.DeepSpeedPlugin"):
            value = site.keyword("hf_ds_config") or (site.node.args[0] if site.node.args else None)
            if value is not None:
                self.out.config_refs.append(self.config_ref(value, "accelerate", "DeepSpeedPlugin(hf_ds_config=...)"))
        plugin = self.accelerate_plugin()
        if plugin is not None:
            self.out.config_refs.append(plugin)

    def accelerate_plugin(self) -> Optional[ConfigRef]:
        """`Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=2, ...))` (the plugin bound to a name
        or inline), the script's only plugin and Accelerator, given by keywords: a ConfigRef how="plugin"
        whose `keywords` are (field, value, span of `field=value`), the value config_dicts.NotLiteral
        where it is not a constant. The linker builds the config from them and the launch's settings."""
        plugins = self.f.calls_to("accelerate.utils.DeepSpeedPlugin", "accelerate.DeepSpeedPlugin")
        accelerators = self.f.calls_to("accelerate.Accelerator")
        if len(plugins) != 1 or len(accelerators) != 1:
            return None
        site, passed = plugins[0], accelerators[0].keyword("deepspeed_plugin")
        if passed is None or self.model.value_of(passed) is not site.node or site.node.args:
            return None
        if any(kw.arg is None for kw in site.node.keywords):  # `**BASE_KW`: a dict known by value
            splats = call_keywords(self.model, site.node, self.known, UNKNOWN, self.span)
            if splats.pending:
                return ConfigRef("plugin", "accelerate", "DeepSpeedPlugin(...)", self.span(site.node), splats=splats)
            return plugin_ref(self.span(site.node), splats)
        keywords = []
        for kw in site.node.keywords:
            if kw.arg is None or kw.arg == "hf_ds_config":
                return None  # `**settings`, or a config file / dict the plugin reads
            value = self.known(kw.value)
            if value is UNKNOWN:
                value = NotLiteral(ast.unparse(kw.value)[:60])
            keywords.append((kw.arg, value, self.span(kw)))
        return ConfigRef("plugin", "accelerate", "DeepSpeedPlugin(...)", self.span(site.node), keywords=tuple(keywords))

    def hf_parsed_config(self, site: CallSite) -> Optional[ConfigRef]:
        """`HfArgumentParser((ModelArguments, TrainingArguments))` where TrainingArguments is a
        dataclass of this module deriving from transformers' with `deepspeed: str = "ds.json"`: every
        field is an option `--<field>`, so the config is that default unless the launch line passes
        `--deepspeed`. A class imported from another project module: `class_field` names it, and the
        linker reads the default where the class derives from TrainingArguments. None when the
        arguments may come from a file (`parse_json_file`, ...)."""
        if any(self.f.method_calls(m) for m in ("parse_json_file", "parse_yaml_file", "parse_dict")):
            return None
        model = self.model
        types = site.argument(0, "dataclass_types")
        types = model.value_of(types) if types is not None else None
        for element in (types.elts if isinstance(types, (ast.Tuple, ast.List)) else [types] if types is not None else []):
            cls = self.training_arguments_class(element)
            imported = project_import(model, element) if cls is None and element is not None else None
            if imported is not None:  # `from args import MyTrainingArguments`: the linker reads its default
                return ConfigRef("argument", "hf", f"{imported}.deepspeed (HfArgumentParser)", self.span(site.node),
                                 options=("--deepspeed",), class_field=(imported, "deepspeed"))
            if cls is None:
                continue
            default = class_field_default(model, cls.name, "deepspeed")
            path = self.known(default) if default is not None else UNKNOWN
            if isinstance(path, str) and path:
                return ConfigRef("argument", "hf", f"{cls.name}.deepspeed (HfArgumentParser)", self.span(default),
                                 path=path, options=("--deepspeed",))
        return None

    def hf_args_file(self) -> Optional[tuple]:
        """The one `parser.parse_json_file(sys.argv[i])` / `parse_yaml_file(...)` of an HfArgumentParser
        of TrainingArguments (or a subclass), the path `sys.argv[i]` (or `os.path.abspath(...)` of it),
        run unconditionally or under tests of sys.argv alone (HF's `if len(sys.argv) == 2 and
        sys.argv[1].endswith(".json")`): (i, "json"/"yaml", span, under such a test); i is (the options, the
        default) for the value of a command-line option (`json_file=args.train_args_file`); None otherwise."""
        found = []
        for method, kind, keyword in (("parse_json_file", "json", "json_file"), ("parse_yaml_file", "yaml", "yaml_file")):
            for site in self.f.method_calls(method):
                found.append((site, kind, keyword))
        if len(found) != 1:
            return None
        site, kind, keyword = found[0]
        parser = self.model.value_of(site.node.func.value) if isinstance(site.node.func, ast.Attribute) else None
        if not (isinstance(parser, ast.Call) and self.f.callee_name(parser) == "transformers.HfArgumentParser"):
            return None
        types = self.model.value_of(parser.args[0]) if parser.args else None
        elements = types.elts if isinstance(types, (ast.Tuple, ast.List)) else [types]
        if not any(e is not None and (self.model.resolve(e) in HF_TRAINING_ARGS or self.training_arguments_class(e))
                   for e in elements):
            return None
        tests = [ast.unparse(g.test) for g, _ in site.ctx.guards]
        if any("sys.argv" not in t and "__main__" not in t for t in tests):
            return None
        path = self.model.value_of(site.argument(0, keyword)) if site.argument(0, keyword) is not None else None
        if isinstance(path, ast.Call) and self.f.callee_name(path) in ("os.path.abspath", "pathlib.Path") \
                and len(path.args) == 1 and not path.keywords:
            path = self.model.value_of(path.args[0])
        if isinstance(path, ast.Attribute) and _reads_command_line(self.model, path):
            # `parse_json_file(json_file=args.train_args_file)`: the option's value on the launch line, or its default
            options, default = self.options_for(path.attr)
            if not options:
                return None
            return (options, default), kind, self.span(site.node), False
        if not (isinstance(path, ast.Subscript) and self.model.resolve(path.value) == "sys.argv"):
            return None
        index = _literal(path.slice)
        if not isinstance(index, int) or isinstance(index, bool) or index == 0:
            return None
        return index, kind, self.span(site.node), any("sys.argv" in t for t in tests)

    def training_arguments_class(self, expr: ast.AST, depth: int = 0) -> Optional[ast.ClassDef]:
        """The class of this module `expr` names when it derives (through classes of this module)
        from transformers' TrainingArguments or one of its subclasses, else None."""
        binding = self.model.binding_of(expr) if isinstance(expr, ast.Name) else None
        if binding is None or binding.kind != "class" or depth > 4:
            return None
        for base in binding.node.bases:
            if self.model.resolve(base) in HF_TRAINING_ARGS or self.training_arguments_class(base, depth + 1):
                return binding.node
        return None

    def read_lightning(self) -> None:
        for kind, names in (("trainer", LIGHTNING_TRAINERS), ("fabric", FABRIC)):
            for site in self.f.calls_to(*names):
                self.out.lightning.append(self.lightning_site(kind, site))
        # configure_optimizers returning a torch optimizer
        for name, func in self.f.functions.items():
            if not name.endswith(".configure_optimizers"):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Call):
                    found = self.optimizer_of(node, "configure_optimizers")
                    if found:
                        self.out.lightning_optimizers.append(found)
                    qualname = self.f.callee_name(node)
                    if qualname in CPU_OPTIMIZERS:
                        self.out.cpu_optimizer = True

    def lightning_site(self, kind: str, site: CallSite) -> LightningSite:
        devices_node = site.keyword("devices")
        devices = _literal(devices_node) if devices_node is not None else "auto"
        devices_options: tuple = ()
        if devices is UNKNOWN and devices_node is not None:
            model = self.model
            source = argparse_source(model, model.value_of(devices_node))
            if source is not None:
                default = self.known(source[1]) if source[1] is not None else UNKNOWN
                devices = default if isinstance(default, int) and not isinstance(default, bool) else UNKNOWN
                devices_options = argparse_options(model, source[0]) if devices is not UNKNOWN else ()
            else:
                devices = self.known(devices_node)  # `devices=NUM_GPUS`, a module constant
        devices_field = nodes_field = None
        if devices is UNKNOWN and devices_node is not None:  # `devices=s.devices`, `s = FabricSettings()`
            value, devices_field = self.class_field_value(devices_node)
            devices = value if value is not None else UNKNOWN
        nodes = self.known(site.keyword("num_nodes")) if site.keyword("num_nodes") is not None else 1
        from_option = option_default(self.model, site.keyword("num_nodes")) if nodes is UNKNOWN else None
        if from_option is not None:
            nodes = from_option.value
        elif nodes is UNKNOWN:
            value, nodes_field = self.class_field_value(site.keyword("num_nodes"))
            nodes = value if value is not None else UNKNOWN
        strategy_node = site.keyword("strategy")
        strategy_node = self.follow(strategy_node)
        strategy = strategy_class = kwargs = config = splats = builder = None
        complete = True
        if strategy_node is not None:
            value = self.known(strategy_node)
            if isinstance(value, str):
                strategy = value
            elif isinstance(strategy_node, ast.Call):
                strategy_class, kwargs, complete, config, splats = self.strategy_object(kind, strategy_node)
                if strategy_class is not None and project_import(self.model, strategy_node.func) is not None \
                        and not strategy_node.args and not strategy_node.keywords:
                    # `strategy=make_strategy()`, `strategy=OffloadStrategy()` of another module
                    builder, strategy_class = dotted(strategy_node.func), None
        environment = None
        plugins = site.keyword("plugins")
        if plugins is not None:
            for node in ast.walk(plugins):
                if isinstance(node, ast.Call):
                    name = (self.f.callee_name(node) or "").rsplit(".", 1)[-1]
                    if name.endswith("Environment"):
                        environment = name
        return LightningSite(
            kind=kind, span=self.span(site.node),
            devices=None if devices is UNKNOWN else devices, devices_given=devices_node is not None,
            num_nodes=nodes if isinstance(nodes, int) and not isinstance(nodes, bool) else None,
            strategy=strategy, strategy_span=self.span(strategy_node) if strategy_node is not None else None,
            strategy_class=strategy_class, strategy_kwargs=kwargs, strategy_kwargs_complete=complete,
            config=config, cluster_environment=environment, devices_options=devices_options,
            strategy_splats=splats, num_nodes_options=from_option.options if from_option is not None else (),
            num_nodes_direct=from_option is not None and from_option.direct, devices_field=devices_field,
            num_nodes_field=nodes_field, strategy_builder=builder)

    def strategy_object(self, kind: str, node: ast.Call) -> tuple:
        """(class name, literal keywords of a DeepSpeedStrategy or None, every keyword known, its config
        ConfigRef, its `**` dicts still to read) of a strategy object built by `node`."""
        qualname = self.f.callee_name(node) or ""
        strategy_class = qualname.rsplit(".", 1)[-1] or None
        kwargs = config = splats = None
        complete = True
        if _is_super_init(node):  # (`super().__init__(stage=2, ...)` of a DeepSpeedStrategy subclass)
            qualname, strategy_class = "DeepSpeedStrategy", "DeepSpeedStrategy"
        if qualname in DEEPSPEED_STRATEGY or strategy_class == "DeepSpeedStrategy":
            kwargs = {}
            for kw in node.keywords:
                if kw.arg is None:
                    complete = False
                    continue
                if kw.arg == "config":
                    config = self.config_ref(kw.value, "lightning" if kind == "trainer" else "fabric",
                                             "DeepSpeedStrategy(config=...)")
                    continue
                literal = self.known(kw.value)
                if literal is UNKNOWN:
                    complete = False
                else:
                    kwargs[kw.arg] = literal
            if node.args:
                complete = False
            elif any(kw.arg is None for kw in node.keywords):  # `**STRATEGY_KW`
                splats = call_keywords(self.model, node, self.known, UNKNOWN, self.span)
                if not splats.pending:
                    kwargs, complete = strategy_keywords(splats, config is not None)
                    splats = None
        return strategy_class, kwargs, complete, config, splats

    def read_strategy_factories(self) -> None:
        """`def make_strategy(): return DeepSpeedStrategy(config=build_ds_dict())`: each top-level function of
        the module without parameters whose one `return` gives a DeepSpeedStrategy (the linker reads it for
        a Trainer of another module that calls it: `strategy=make_strategy()`)."""
        if "Strategy" not in self.f.text:
            return
        for stmt in self.f.tree.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or stmt.args.args or stmt.args.kwonlyargs \
                    or stmt.args.vararg or stmt.args.kwarg:
                continue
            returns = own_returns(stmt)
            value = self.model.value_of(returns[0].value) if len(returns) == 1 and returns[0].value is not None else None
            if not isinstance(value, ast.Call):
                continue
            parts = self.strategy_object("trainer", value)
            if parts[1] is not None:
                self.out.returned_strategies[stmt.name] = (self.span(value), *parts)
        for stmt in self.f.tree.body:  # `class OffloadStrategy(DeepSpeedStrategy)` whose __init__ fixes keywords
            if not isinstance(stmt, ast.ClassDef) or not any(
                    (self.model.resolve(b) or "").rsplit(".", 1)[-1] == "DeepSpeedStrategy" for b in stmt.bases):
                continue
            init = next((n for n in stmt.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            if init is None or len(init.args.args) != 1 or init.args.vararg or init.args.kwonlyargs:
                continue
            supers = [n for n in ast.walk(init) if isinstance(n, ast.Call) and _is_super_init(n)]
            if len(supers) == 1:
                call = supers[0]
                own = init.args.kwarg.arg if init.args.kwarg is not None else None
                if own is not None:  # (`**kw` of the constructor passed on: empty, as the linker reads only `Cls()`)
                    call = ast.Call(func=call.func, args=call.args, keywords=[
                        k for k in call.keywords if not (k.arg is None and isinstance(k.value, ast.Name) and k.value.id == own)])
                parts = self.strategy_object("trainer", call)
                self.out.returned_strategies[stmt.name] = (self.span(supers[0]), *parts)

    def from_option_defaults(self, expr: ast.AST) -> Optional[tuple]:
        """`f"configs/ds_zero{args.zero_stage}.json"`: (the path with each option's default, the
        options), when every part is a literal or an argparse option with a literal default."""
        if not isinstance(expr, ast.JoinedStr):
            return None
        text, options = "", []
        for part in expr.values:
            if isinstance(part, ast.Constant):
                text += str(part.value)
                continue
            if not isinstance(part, ast.FormattedValue) or part.format_spec is not None or part.conversion != -1:
                return None
            source = argparse_source(self.model, part.value)
            default = _literal(source[1]) if source is not None and source[1] is not None else UNKNOWN
            if source is None or default is UNKNOWN or default is None:
                return None
            text += str(default)
            options += argparse_options(self.model, source[0])
        return (text, tuple(options)) if options else None

    def class_field_value(self, expr: ast.AST) -> tuple:
        """`cfg.num_workers` kept at its class default: (the int, None) for a class of this module,
        (None, (class, field)) for one another module defines; (None, None) otherwise."""
        model = semantic_model(self.f)
        found = instance_field(model, model.value_of(expr))
        if found is None:
            return None, None
        if found.local:
            value = _literal(class_field_default(model, dotted(found.klass) or "", found.field))
            return (value if isinstance(value, int) and not isinstance(value, bool) else None), None
        return None, (dotted(found.klass), found.field)

    def machine_class_field(self, expr: ast.AST) -> bool:
        """`cfg.workers` kept at the default of a class of this module that is the machine's CPU count
        (`workers: int = field(default_factory=os.cpu_count)`)."""
        model = semantic_model(self.f)
        found = instance_field(model, model.value_of(expr))
        klass = self.f.classes.get(dotted(found.klass) or "") if found is not None and found.local else None
        return klass is not None and any(
            isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == found.field
            and stmt.value is not None and machine_field_default(stmt.value, self.f.callee_name, self.f.resolve)
            for stmt in klass.body)

    def instance_default(self, expr: ast.Attribute) -> tuple[Any, Optional[tuple]]:
        """`cfg.batch_size` of an instance left at the class's default, built in the module (`cfg =
        RunConfig()`) or passed in (`main(RunConfig())`, `passed_instance`): (its value, None) for a class
        of this module, (UNKNOWN, (class, field)) for one of another module (the linker reads its
        default); (UNKNOWN, None) otherwise."""
        found = instance_field(self.model, self.model.value_of(expr))
        klass = found.klass if found is not None else self.passed_instance(expr)
        if klass is None:
            return UNKNOWN, None
        name = dotted(klass) or ""
        if name in self.f.classes:
            methods = {stmt.name for stmt in self.f.classes[name].body if isinstance(stmt, ast.FunctionDef)}
            default = class_field_default(self.model, name, expr.attr) if found is not None or not \
                {"__init__", "__post_init__"} & methods else None  # (they may set it otherwise)
            return (self.known(default) if default is not None else UNKNOWN), None
        root = root_name(klass)
        binding = self.model.binding_of(root) if root is not None else None
        if binding is None or binding.kind not in ("import", "from-import") or (
                not (binding.qualname or "").startswith(".") and is_library((binding.qualname or "").split(".")[0])):
            return UNKNOWN, None
        return UNKNOWN, (name, expr.attr)

    def passed_instance(self, expr: ast.Attribute) -> Optional[ast.expr]:
        """The class of `cfg` in `cfg.x` when `cfg` is a parameter of a top-level function that the module
        only calls, each time with `C()` (no arguments) for it, and the function only reads attributes of
        it (no store, no method call, not passed on): `C`; else None."""
        binding = self.read_only_parameter(expr)
        if binding is None:
            return None
        function = binding.scope.node
        defined = self.model.own_scope(self.f.tree).bindings.get(function.name, [])
        if len(defined) != 1 or defined[0].node is not function:
            return None
        classes = set()
        for use in self.model.uses_of(defined[0]) or [None]:
            call = self.model.parent_of(use) if use is not None else None
            if not isinstance(call, ast.Call) or call.func is not use or any(
                    isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return None
            given = call.args[binding.position] if binding.position < len(call.args) else next(
                (k.value for k in call.keywords if k.arg == binding.name), None)
            built = self.model.value_of(given) if given is not None else None
            if not isinstance(built, ast.Call) or built.args or built.keywords or not dotted(built.func):
                return None
            classes.add(dotted(built.func))
            klass = built.func
        return klass if len(classes) == 1 else None

    def read_only_parameter(self, expr: ast.Attribute):
        """The parameter binding of `cfg` in `cfg.x`, when `cfg` is a positional parameter of a module-level
        function that only reads attributes of it (no store, no method call, not passed on); else None."""
        param = expr.value
        binding = self.model.binding_of(param) if isinstance(param, ast.Name) else None
        if binding is None or binding.kind != "parameter" or binding.position is None:
            return None
        function = binding.scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function not in self.f.tree.body:
            return None
        return binding if only_field_reads(self.model, binding) else None

    def worker_count(self, expr: ast.AST) -> tuple[Optional[int], bool, tuple, bool]:
        """A worker count through names, module constants and command-line defaults: (the int, whether
        it is the machine's CPU count, the options whose default it is, whether it went through no
        option or parameter default); (None, False, (), False) when neither: `n = os.cpu_count()` or
        `def main(num_workers=os.cpu_count())` under fire/jsonargparse is the CPU count (that call
        itself, not a count computed from it)."""
        traced = traced_constant(self.model, expr)
        own = not traced.options and not traced.defaults
        if isinstance(traced.value, int) and not isinstance(traced.value, bool):
            return traced.value, False, traced.options, own
        value = self.model.value_of(expr)  # through names only: `n // 8` is a count per rank
        if isinstance(value, (ast.Name, ast.Attribute)) and len(traced.defaults) == 1:
            value = self.model.value_of(traced.defaults[0])  # the option or parameter itself
        if isinstance(value, ast.Call) and (self.f.callee_name(value) or "") in _CPU_COUNTS:
            return None, True, traced.options, own
        return None, False, (), False

    def follow(self, expr: Optional[ast.AST]) -> Optional[ast.AST]:
        """A name bound once where it is used stands for its value (`strategy = DeepSpeedStrategy(...)`)."""
        if isinstance(expr, ast.Name):
            return self.model.value_of(expr)
        return expr

    def hf_training_args(self, site: CallSite, config: Optional[ConfigRef]) -> HfTrainingArgs:
        """What one TrainingArguments(...) call says about the fields HF compares with the config."""
        known: dict = {}
        unknown: list = []
        fields: list = []
        imported: list = []
        for keyword in site.node.keywords:
            if keyword.arg is None or keyword.arg not in HF_TRAINING_ARGS_DEFAULTS:
                continue
            value = self.known(keyword.value)
            other = None
            if value is UNKNOWN and isinstance(keyword.value, ast.Attribute):
                value, other = self.instance_default(keyword.value)
            constant = self.imported_constant(keyword.value, "", "") if value is UNKNOWN and other is None else None
            if other is not None:
                fields.append((keyword.arg, *other, self.span(keyword)))
            elif constant is not None and constant.how == "imported" and not constant.overwritten:
                imported.append((keyword.arg, constant.builder, self.span(keyword)))
            elif value is UNKNOWN:
                unknown.append(keyword.arg)
            else:
                known[keyword.arg] = (value, self.span(keyword))
        # `args.bf16 = True` after the call: the Trainer reads the changed value
        changed = self.changed_fields(site.node)
        for name in changed - {"*"}:
            known.pop(name, None)
            fields = [entry for entry in fields if entry[0] != name]
            imported = [entry for entry in imported if entry[0] != name]
            if name not in unknown:
                unknown.append(name)
        qualname = site.qualname or ""
        return HfTrainingArgs(
            qualname=qualname, span=self.span(site.node), config_span=config.span if config is not None else None,
            known=known, unknown=tuple(unknown),
            open=site.has_star_kwargs or len(site.node.args) > 1 or any(isinstance(a, ast.Starred) for a in site.node.args)
            or "*" in changed,
            defaults=qualname in HF_DEFAULTS_FROM, class_fields=tuple(fields), imported_fields=tuple(imported))

    def changed_fields(self, call: ast.Call) -> set:
        """Fields of the object a TrainingArguments call builds that the module assigns afterwards
        (`args.fp16 = True`); "*" for `setattr(args, ...)` or `vars(args).update(...)`."""
        model = self.model
        parent = model.parent_of(call)
        if not isinstance(parent, ast.Assign):
            return set()
        names = {t.id for t in parent.targets if isinstance(t, ast.Name)}
        changed = set()
        for name in HF_TRAINING_ARGS_DEFAULTS:
            for store in model.attribute_stores(name):
                if isinstance(store.value, ast.Name) and store.value.id in names:
                    changed.add(name)
        def names_it(expr) -> bool:
            return isinstance(expr, ast.Name) and expr.id in names

        sites = [(s.node, s.node.args[0] if s.node.args else None) for s in self.f.method_calls("setattr")]
        sites += [(s.node, s.node.args[0] if s.node.args else None) for s in self.f.calls_to("dataclasses.replace")]
        for site in self.f.method_calls("update"):  # vars(args).update(...) / args.__dict__.update(...)
            holder = site.node.func.value if isinstance(site.node.func, ast.Attribute) else None
            if isinstance(holder, ast.Call) and getattr(holder.func, "id", "") == "vars" and holder.args:
                sites.append((site.node, holder.args[0]))
            elif isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
                sites.append((site.node, holder.value))
        if any(names_it(target) for _, target in sites):
            changed.add("*")
        return changed

    # -- processes, loaders, ports, saves -------------------------------------------------------
    def read_processes(self) -> None:
        for site in self.f.calls_to(*SPAWNERS):
            nprocs = _literal(site.keyword("nprocs") or site.keyword("num_processes") or
                              (site.node.args[2] if site.attr == "notebook_launcher" and len(site.node.args) > 2 else None))
            conditional = any("__main__" not in ast.unparse(g.test) for g, _ in site.ctx.guards)
            self.out.spawns.append(Spawn(self.span(site.node), site.qualname or site.attr,
                                         nprocs if isinstance(nprocs, int) else None, conditional))
        for site in self.f.calls_to("torch.utils.data.DataLoader"):
            value = site.keyword("num_workers")
            callers = None
            if value is None and site.has_star_kwargs:  # `DataLoader(ds, **LOADER_KW)`
                value = self.splatted(site.node, "num_workers")
                if value is None:
                    value, callers = self.default_unless_passed(site, "num_workers")
            if value is None:
                continue
            literal = _literal(value)
            per_machine, bound = cpu_scaling(value, self.f.callee_name)  # (`min(4, os.cpu_count())` is 4 at most)
            number, class_default, options = (literal if isinstance(literal, int) else bound), None, ()
            fixed = number is not None or per_machine
            if number is None and not per_machine:
                number, class_default = self.class_field_value(value)
                if number is None and class_default is None and self.machine_class_field(value):
                    per_machine = fixed = True
            if number is None and class_default is None and not per_machine:
                number, per_machine, options, fixed = self.worker_count(value)
            scope = scope_key(site.ctx.function, site.ctx.class_, self.f)
            param_field = None
            if number is None and class_default is None and not per_machine and isinstance(value, ast.Attribute):
                binding = self.read_only_parameter(value)
                defined = self.model.own_scope(self.f.tree).bindings.get(binding.scope.node.name, []) if binding else []
                if len(defined) == 1 and not self.model.uses_of(defined[0]):  # (called from other modules only)
                    param_field = (binding.scope.node.name, binding.position, binding.name, value.attr)
            read = config_object_read(self.model, value) if number is None and class_default is None and \
                not per_machine and param_field is None and not options else None
            self.out.loader_workers.append(LoaderWorkers(self.span(value), number, per_machine, class_default, options,
                                                         fixed and class_default is None, scope, callers, param_field,
                                                         read))
        for site in self.f.calls_to("torch.distributed.init_process_group"):
            init = self.init_method(site.keyword("init_method"))
            if isinstance(init, str) and init.startswith("tcp://"):
                port = init.rsplit(":", 1)[-1]
                if port.isdigit():
                    self.out.ports.append(PortLiteral(self.span(site.keyword("init_method")), int(port),
                                                      f"init_method={init!r}"))

    def default_unless_passed(self, site: CallSite, name: str) -> tuple[Optional[ast.AST], Optional[str]]:
        """(the value, the function) of keyword `name` that `**opts` gives the call in a module-level function
        `def make_loader(ds, **overrides)` that builds `opts = dict(DEFAULTS)` (or `DEFAULTS.copy()`, `{**DEFAULTS}`)
        of a module dict nothing changes and only updates it with `overrides`: DEFAULTS' value, unless a caller
        passes `name` (the linker asks them); (None, None) for any other shape, or a call of this module that
        may pass it."""
        function = site.ctx.function
        splats = [k.value for k in site.node.keywords if k.arg is None]
        kwargs = function.args.kwarg.arg if isinstance(function, ast.FunctionDef) and function.args.kwarg else None
        if kwargs is None or function not in self.f.tree.body or len(splats) != 1 or not isinstance(splats[0], ast.Name):
            return None, None
        binding = self.model.binding_of(splats[0])
        if binding is None or binding.kind != "assignment" or self.model.values_of(splats[0]) != [binding.value]:
            return None, None
        copied = binding.value
        base = copied.args[0] if isinstance(copied, ast.Call) and isinstance(copied.func, ast.Name) \
            and copied.func.id == "dict" and len(copied.args) == 1 and not copied.keywords else \
            copied.func.value if isinstance(copied, ast.Call) and isinstance(copied.func, ast.Attribute) \
            and copied.func.attr == "copy" and not copied.args else \
            copied.values[0] if isinstance(copied, ast.Dict) and copied.keys == [None] else None
        defaults = self.unchanged_dict(base) if isinstance(base, ast.Name) else None
        if defaults is None:
            return None, None
        for use in self.model.uses_of(binding):
            if use is splats[0]:
                continue
            call = self.model.parent_of(self.model.parent_of(use))
            if not (isinstance(self.model.parent_of(use), ast.Attribute) and self.model.parent_of(use).attr == "update"
                    and isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords
                    and isinstance(call.args[0], ast.Name) and call.args[0].id == kwargs
                    and isinstance(self.model.parent_of(call), ast.Expr)):
                return None, None  # (changed otherwise, or passed on)
        value = next((v for k, v in zip(defaults.keys, defaults.values)
                      if isinstance(k, ast.Constant) and k.value == name), None)
        if value is None or any(kw.arg is None or kw.arg == name for other in self.f.calls
                                if isinstance(other.node.func, ast.Name) and other.node.func.id == function.name
                                for kw in other.node.keywords):
            return None, None
        return value, function.name

    def splatted(self, call: ast.Call, name: str) -> Optional[ast.AST]:
        """The expression that a `**KW` of `call` gives the keyword `name`, where the module knows KW's
        keys (facts/keyword_splats.py); None otherwise."""
        values, _, _ = call_keywords(self.model, call, lambda expr: expr, None, self.span).merged()
        found = values.get(name)
        return found if isinstance(found, ast.AST) else None

    def init_method(self, expr: Optional[ast.AST]) -> Any:
        """The init_method URL: a literal, a module constant or a name bound once (`known`), or a
        config object's field kept at the default of a class of this module (`cfg.dist_url`)."""
        value = self.known(expr)
        if value is UNKNOWN and expr is not None:
            found = instance_field(self.model, self.model.value_of(expr))
            if found is not None and found.local:
                value = _literal(class_field_default(self.model, dotted(found.klass) or "", found.field))
        return value

    def read_env_device_indexes(self) -> None:
        """`torch.cuda.set_device(i)` where `i` reads the environment and nothing else."""
        sites = self.f.calls_to("torch.cuda.set_device")
        if not sites:
            return
        model = self.model
        reads = {id(a.node): a for a in env_accesses(model) if a.kind == "read"}
        for site in sites:
            index = site.argument(0, "device")
            options: tuple = ()
            if index is not None and _reads_command_line(model, index):
                # `args.local_rank` whose default is `int(os.environ.get("LOCAL_RANK", 0))`
                source = argparse_source(model, model.value_of(index))
                if source is None or source[1] is None:
                    continue
                index, options = source[1], argparse_options(model, source[0])
                if not options or _reads_command_line(model, index):
                    continue
            if index is None:
                continue
            passed = self.passed_namespace_field(index)
            if passed is not None:
                self.out.param_device_indexes.append(passed)
                continue
            other = instance_field(model, model.value_of(index)) if isinstance(index, ast.Attribute) else None
            if other is not None and not other.local and dotted(other.klass):
                self.out.class_env_device_indexes.append((dotted(other.klass), other.field))
                continue
            index = factory_default(model, index) or index  # `cfg.local_rank` of `field(default_factory=lambda: ...)`
            function = site.ctx.function
            top = function.name if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                any(stmt is function for stmt in self.f.tree.body) else None
            found = self.env_index(site.node, index, reads, top, options)
            if found is not None:
                self.out.env_device_indexes.append(found)

    def env_index(self, at: ast.AST, expr: ast.AST, reads: dict, function: Optional[str] = None,
                  options: tuple = ()) -> Optional[EnvDeviceIndex]:
        """The EnvDeviceIndex (span: `at`) of an index `expr` that the environment alone gives; None when
        it is not the environment's alone (or a constant: DSL101's), or reads a variable whose name is unknown."""
        found = _env_reads_in(self.model, expr, reads)
        keys = tuple(dict.fromkeys(a.key for a in found or ()))
        if not found or None in keys:  # (`os.environ[name]`: which variable is not known)
            return None
        unset = constant(self.model, expr, assume_env_unset=True)
        return EnvDeviceIndex(self.span(at), self.span(found[0].node), keys,
                              unset if isinstance(unset, int) and not isinstance(unset, bool) else None, function,
                              unless_options=options)

    def passed_namespace_field(self, index: ast.AST) -> Optional[tuple]:
        """(function, position, attribute) of `args.local_rank` where `args` is a positional parameter of a
        top-level function of this module and nothing here assigns `args.local_rank`; else None."""
        if not (isinstance(index, ast.Attribute) and isinstance(index.value, ast.Name)):
            return None
        binding = self.model.binding_of(index.value)
        if binding is None or binding.kind != "parameter" or binding.position is None:
            return None
        function = binding.scope.node
        if function not in self.f.tree.body or overridden_attribute(self.model, index):
            return None
        return function.name, binding.position, index.attr

    def read_namespace_calls(self) -> None:
        """ScriptSetupFacts.namespace_calls and option_env_indexes, for a module that parses options."""
        defaults = argparse_defaults(self.model)
        if not defaults:
            return
        for site in self.f.calls:
            if not site.calls_project_name(self.f.imports):
                continue
            for position, arg in enumerate(site.node.args):
                if isinstance(arg, ast.Starred):
                    break
                if isinstance(arg, ast.Name) and is_namespace(self.model, arg):
                    self.out.namespace_calls.append((site.local_name, position))
        if not self.out.namespace_calls:
            return
        reads = {id(a.node): a for a in env_accesses(self.model) if a.kind == "read"}
        for dest, default in defaults.items():
            options = argparse_options(self.model, dest)
            found = self.env_index(default, default, reads, options=options) if default is not None and options else None
            if found is not None:
                self.out.option_env_indexes[dest] = found

    def read_env_fields(self) -> None:
        """ScriptSetupFacts.env_fields: the dataclass fields of this module whose default factory reads the
        environment and nothing else (for a set_device in another module that builds the class)."""
        reads = None
        for name, klass in self.f.classes.items():
            for stmt in klass.body:
                value = stmt.value if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) else None
                if not (isinstance(value, ast.Call) and self.model.resolve(value.func) == "dataclasses.field"):
                    continue
                factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
                if not (isinstance(factory, ast.Lambda) and not factory.args.args):
                    continue
                if reads is None:
                    reads = {id(a.node): a for a in env_accesses(self.model) if a.kind == "read"}
                found = self.env_index(stmt, factory.body, reads)
                if found is not None:
                    self.out.env_fields[f"{name}.{stmt.target.id}"] = found

    def read_env_sets(self) -> None:
        self._remote_addr_scopes: set = set()
        self._port_scopes: list = []  # (function, index in out.ports) of each MASTER_PORT set
        for node, _ in self.f.of_type(ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and dotted(target.value) in ("os.environ", "environ"):
                    self._env_set(_literal(target.slice), node.value, node)
        # `os.environ.update(MASTER_PORT="29501")`, `os.environ.update({"MASTER_PORT": "29501"})`
        for site in self.f.method_calls("update"):
            if site.receiver not in ("os.environ", "environ"):
                continue
            pairs = [(k.arg, k.value) for k in site.node.keywords if k.arg is not None]
            if len(site.node.args) == 1 and isinstance(site.node.args[0], ast.Dict):
                pairs += [(_literal(k), v) for k, v in zip(site.node.args[0].keys, site.node.args[0].values) if k is not None]
            for key, value in pairs:
                self._env_set(key, value, site.node)
        agreed = {index for function, index in self._port_scopes if function in self._remote_addr_scopes}
        if agreed:  # a port set beside a MASTER_ADDR the job computes: a multi-node rendezvous
            self.out.agreed_ports = [p.span for i, p in enumerate(self.out.ports) if i in agreed]
            self.out.ports = [p for i, p in enumerate(self.out.ports) if i not in agreed]
        for key, (value, span) in self.out.env_sets.items():
            if key == "PL_DEEPSPEED_CONFIG_PATH" and value:
                self.out.config_refs.append(ConfigRef("literal", "lightning", "os.environ['PL_DEEPSPEED_CONFIG_PATH']",
                                                      span, path=value))

    def _env_set(self, key, value_node: ast.expr, node: ast.AST) -> None:
        if not isinstance(key, str):
            return
        value = self.known(value_node)  # `str(PORT)`, an f-string of module constants
        literal = str(value) if isinstance(value, (str, int)) else None
        self.out.env_sets[key] = (literal, self.span(node))
        ctx = self.f.context_of(node)
        guarded = ctx is not None and any("environ" in ast.unparse(g.test) or "MASTER_PORT" in ast.unparse(g.test)
                                          for g, _ in ctx.guards)
        if key == "MASTER_ADDR" and not (isinstance(value, str) and value.strip().lower() in _LOOPBACK):
            # (an address the job finds, a hostfile's first host: the nodes meet there, on a port agreed by design)
            self._remote_addr_scopes.add(getattr(ctx, "function", None))
        if key == "MASTER_PORT" and literal and literal.isdigit() and not guarded:
            self._port_scopes.append((getattr(ctx, "function", None), len(self.out.ports)))
            self.out.ports.append(PortLiteral(self.span(node), int(literal), f"os.environ[\"MASTER_PORT\"] = {literal!r}"))

    def read_threads(self) -> None:
        self.out.sets_num_threads = bool(self.f.calls_to("torch.set_num_threads"))

    def read_saves(self) -> None:
        for attr, what in (("save_16bit_model", "save_16bit_model"), ("save_fp16_model", "save_fp16_model"),
                           ("get_state_dict", "accelerator.get_state_dict")):
            for site in self.f.method_calls(attr):
                if site.receiver is not None:
                    self.out.saves.append(WeightSave(self.span(site.node), what))
        if self.out.hf_trainer:
            for site in self.f.method_calls("save_model"):
                if site.receiver is not None:
                    self.out.saves.append(WeightSave(self.span(site.node), "trainer.save_model"))

    def run(self) -> ScriptSetupFacts:
        self.read_argparse()
        self.read_env_sets()
        self.read_deepspeed()
        self.read_hf()
        self.read_lightning()
        self.read_strategy_factories()
        self.read_helper_calls()
        self.read_processes()
        self.read_env_device_indexes()
        self.read_env_fields()
        self.read_namespace_calls()
        self.read_saves()
        self.read_threads()
        self.read_dumped_configs()
        return self.out

    def read_dumped_configs(self) -> None:
        """`with open(args.out, "w") as f: json.dump(zero2_offload(...), f)`: the DeepSpeed configs the script
        writes as JSON files (a dict it builds, or a project function's), with the path it writes them to."""
        for site in self.f.calls_to("json.dump"):
            value, handle = site.argument(0, "obj"), site.argument(1, "fp")
            opened = self.opened_for_writing(handle) if value is not None else None
            if opened is None:
                continue
            ref = self.config_ref(value, "deepspeed", "the config json.dump writes")
            if ref.how == "dict" and isinstance(ref.value, dict):
                ref = self.with_option_leaves(value, ref)
            elif ref.how == "built" and isinstance(value, ast.Call):
                ref = dataclasses.replace(ref, arguments=tuple(self.option_leaf(a, v) for a, v in zip(value.args, ref.arguments)),
                                          keywords=tuple((k, self.option_leaf(kw.value, v)) for kw, (k, v)
                                                         in zip(value.keywords, ref.keywords)))
            elif ref.how != "imported":
                continue
            self.out.dumped_configs.append((*opened, ref))

    def option_leaf(self, expr: ast.AST, value):
        """`value` (a leaf read from `expr`), or its OptionLeaf when it is a plain NotLiteral read from an option."""
        return self.layer_leaf(expr) if type(value) is NotLiteral else value

    def with_option_leaves(self, expr: ast.AST, ref: ConfigRef) -> ConfigRef:
        """The "dict" ref of `expr` (the dict literal, or a name bound once to one) with command-line values as
        OptionLeafs: a generator script's values are its own options', which its launch line may set."""
        leaves = self.model.values_of(expr) if isinstance(expr, ast.Name) else [expr]
        if len(leaves) != 1 or not isinstance(leaves[0], ast.Dict):
            return ref
        found = template_of(leaves[0], self.f.lines, self.layer_leaf, merged=self.unchanged_dict)
        if found is None:
            return ref
        rebuilt = dataclasses.replace(ref, value=found.value, key_spans=found.spans)
        return self.dict_as_used(expr, leaves, rebuilt) if isinstance(expr, ast.Name) else rebuilt

    def opened_for_writing(self, handle: Optional[ast.AST]) -> Optional[tuple]:
        """(path, options) of `open(path, "w")` that the name `handle` is bound to (`with ... as f`, `f =
        open(...)`): a literal (no options), or the default of the command-line options that give it; None
        otherwise."""
        if not isinstance(handle, ast.Name):
            return None
        binding = self.model.binding_of(handle)
        opened = binding.context if binding is not None and binding.kind == "with" else \
            binding.value if binding is not None and binding.kind == "assignment" else None
        if not (isinstance(opened, ast.Call) and isinstance(opened.func, ast.Name) and opened.func.id == "open"
                and self.model.binding_of(opened.func) is None and opened.args):
            return None
        mode = opened.args[1] if len(opened.args) > 1 else next((k.value for k in opened.keywords if k.arg == "mode"), None)
        if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "w" in mode.value):
            return None
        ref = self.config_ref(opened.args[0], "", "")
        if ref.how == "literal" and isinstance(ref.path, str) and not ref.unless_options:
            return ref.path, ()
        return (ref.path, ref.options) if ref.how == "argument" and isinstance(ref.path, str) else None


def strategy_keywords(splats: CallKeywords, config_given: bool) -> tuple[dict, bool]:
    """(the DeepSpeedStrategy keywords of known value, whether they are all of them) of a call with
    `**` arguments; `config=` given as a keyword is the strategy's ConfigRef, not one of them."""
    values, _, is_open = splats.merged()
    kwargs = {name: value for name, value in values.items() if name != "config" and not isinstance(value, NotLiteral)}
    complete = not is_open and len(kwargs) == len(values) - (1 if config_given else 0)
    return kwargs, complete


def plugin_ref(span: Span, splats: CallKeywords) -> Optional[ConfigRef]:
    """The ConfigRef how="plugin" of a DeepSpeedPlugin(...) call with `**` arguments; None when its keys
    are not all known or it reads a config (`hf_ds_config`)."""
    values, spans, is_open = splats.merged()
    if is_open or "hf_ds_config" in values:
        return None
    return ConfigRef("plugin", "accelerate", "DeepSpeedPlugin(...)", span,
                     keywords=tuple((name, value, spans[name]) for name, value in values.items()))


def resolved_lightning_site(program, site: LightningSite, importer: str) -> LightningSite:
    """The site with its `**` dicts of other modules read (`importer`: the module of the call)."""
    if site.strategy_splats is None or site.strategy_kwargs is None:
        return site
    kwargs, complete = strategy_keywords(resolved(program, importer, site.strategy_splats), site.config is not None)
    return dataclasses.replace(site, strategy_kwargs=kwargs, strategy_kwargs_complete=complete, strategy_splats=None)


def resolved_plugin_ref(program, ref: ConfigRef, importer: str) -> ConfigRef:
    """A DeepSpeedPlugin ConfigRef with its `**` dicts of other modules read; how="unknown" when their
    keys are not all known."""
    if ref.splats is None:
        return ref
    found = plugin_ref(ref.span, resolved(program, importer, ref.splats))
    return found if found is not None else ConfigRef("unknown", ref.consumer, ref.what, ref.span)


def _same_source(a: ConfigRef, b: ConfigRef) -> bool:
    """Two reaching values give the same config (the same path, option, variable, dict or builder call)."""
    return (a.how, a.path, a.options, a.env, a.value, a.builder, a.arguments, a.keywords) == \
        (b.how, b.path, b.options, b.env, b.value, b.builder, b.arguments, b.keywords)


def _reads_command_line(model: SemanticModel, expr: ast.AST, depth: int = 0) -> bool:
    """Does `expr`, or a value bound to a name in it, read an argparse option (`args.lr`,
    `lr = args.lr * 2`)? `constant` gives such an option its default, which a launch line may
    override."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and argparse_source(model, node) is not None:
            return True
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load) \
                and depth < 4:
            for value in model.values_of(node, hops=1):
                if value is not node and _reads_command_line(model, value, depth + 1):
                    return True
    return False


def _env_reads_in(model: SemanticModel, expr: ast.AST, reads: dict, depth: int = 0) -> Optional[list]:
    """The environment reads (EnvAccess) `expr` goes through, following names to what they are bound
    to; None when a name leads elsewhere (a parameter, a loop variable, several values that are not
    all the environment's or constants): then the value is not the environment's alone."""
    found: list = []
    work = [expr]
    while work:
        node = work.pop()
        if id(node) in reads:
            found.append(reads[id(node)])
            access = reads[id(node)]
            if access.default is not None:
                work.append(access.default)
            continue
        if isinstance(node, ast.Call):
            work.extend(node.args)
            work.extend(k.value for k in node.keywords)
            continue  # the callee (`int`, `os.getenv`) is not a value of the index
        if isinstance(node, ast.Name):
            if depth >= 4:
                return None
            values = [v for v in model.values_of(node, hops=1) if v is not node]
            if not values:
                return None
            for value in values:
                more = _env_reads_in(model, value, reads, depth + 1)
                if more is None:
                    return None
                found += more
            continue
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred, ast.Lambda, ast.NamedExpr)):
            return None  # `args.gpu`, `cfg["gpu"]`: not the environment's
        work.extend(ast.iter_child_nodes(node))
    found.sort(key=lambda a: (a.node.lineno, a.node.col_offset))
    return found


@summary_extractor("setup")
def extract_setup_facts(facts: ScriptFacts) -> ScriptSetupFacts:
    """The setup facts of one script (see the module docstring)."""
    return _Extractor(facts).run()


def local_subclasses(facts: ScriptFacts, bases: tuple) -> set:
    """Names of the module's classes that derive from one of `bases` (qualified names), directly or
    through another class of the module."""
    found: set = set()
    changed = True
    while changed:
        changed = False
        for name, cls in facts.classes.items():
            if name not in found and any(facts.resolve(b) in bases or (isinstance(b, ast.Name) and b.id in found)
                                         for b in cls.bases):
                found.add(name)
                changed = True
    return found
