"""What a training script says about its setup, as plain picklable data for linking.

Extracted once per script (`summary.extra["setup"]`): where the DeepSpeed config comes from
(`deepspeed.initialize(config=...)`, `args.deepspeed_config`, `TrainingArguments(deepspeed=...)`,
`DeepSpeedStrategy(config=...)`, `PL_DEEPSPEED_CONFIG_PATH`), which optimizer drives the step,
which Lightning Trainer/Fabric it builds, whether it spawns processes itself, its DataLoader
workers, literal rendezvous ports and how it saves weights. Everything is plain data with Spans:
setup rules run after every file is parsed, maybe in another process.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Optional

from ..model import Span
from ..sources.names import dotted
from .distributed import FABRIC, HF_TRAINERS, LIGHTNING_TRAINERS
from .script import CallSite, ScriptFacts
from .bindings import semantic_model
from .summary import summary_extractor
from .values import argparse_options, argparse_source

UNKNOWN = object()  # never stored: `_literal` uses it internally
CPU_OPTIMIZERS = ("deepspeed.ops.adam.DeepSpeedCPUAdam", "deepspeed.ops.adam.cpu_adam.DeepSpeedCPUAdam",
                  "deepspeed.ops.adagrad.DeepSpeedCPUAdagrad", "deepspeed.ops.lion.DeepSpeedCPULion",
                  "deepspeed.ops.adam.ZenFlowCPUAdam")
HF_TRAINING_ARGS = ("transformers.TrainingArguments", "transformers.Seq2SeqTrainingArguments", "trl.SFTConfig",
                    "trl.DPOConfig", "trl.GRPOConfig")
DEEPSPEED_STRATEGY = ("lightning.pytorch.strategies.DeepSpeedStrategy", "lightning.fabric.strategies.DeepSpeedStrategy",
                      "lightning.fabric.strategies.deepspeed.DeepSpeedStrategy")
SPAWNERS = ("torch.multiprocessing.spawn", "torch.multiprocessing.start_processes",
            "accelerate.notebook_launcher")
# deepspeed/__init__.py _add_core_arguments: the options `deepspeed.add_config_arguments` adds.
DEEPSPEED_CONFIG_OPTIONS = ("--deepspeed_config", "--deepscale_config")


@dataclass(frozen=True)
class ConfigRef:
    """Where a script takes its DeepSpeed config from.

    how: "literal" (a path written in the script), "argument" (a command-line option, maybe
    with a default), "env" (an environment variable), "dict" (a dict built in the script),
    "unknown".
    """

    how: str
    consumer: str  # deepspeed | hf | lightning | fabric | accelerate
    what: str  # "deepspeed.initialize(config=...)" for messages
    span: Span
    path: Optional[str] = None  # literal path (or the argument's default)
    options: tuple = ()  # command-line options that carry it: ("--config",)
    env: Optional[str] = None
    value: Any = None  # the dict, when it is a literal


@dataclass(frozen=True)
class ClientOptimizer:
    qualname: str  # torch.optim.AdamW
    span: Span  # the constructor call
    keywords: tuple  # keyword names given
    where: str  # "deepspeed.initialize" | "configure_optimizers" | "script"


@dataclass(frozen=True)
class DeepSpeedInit:
    span: Span
    config: Optional[ConfigRef]
    optimizer: Optional[ClientOptimizer]  # a torch optimizer passed as optimizer=
    optimizer_given: bool  # optimizer= given at all (client optimizer of any kind)
    has_mpu: bool  # model/pipeline parallelism: the data-parallel size is not the world size


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


@dataclass(frozen=True)
class Spawn:
    span: Span
    what: str
    nprocs: Optional[int]
    conditional: bool = False  # under an `if` other than `__name__ == "__main__"`


@dataclass(frozen=True)
class LoaderWorkers:
    span: Span  # the num_workers value
    value: Optional[int]  # literal
    per_machine: bool  # os.cpu_count() / multiprocessing.cpu_count() / psutil.cpu_count()


@dataclass(frozen=True)
class PortLiteral:
    span: Span
    port: int
    how: str  # "os.environ['MASTER_PORT'] = ..." | "init_method tcp://" | ...


@dataclass(frozen=True)
class WeightSave:
    span: Span
    what: str  # save_16bit_model | trainer.save_model | accelerator.get_state_dict | state_dict


@dataclass
class ScriptSetupFacts:
    deepspeed_inits: list[DeepSpeedInit] = field(default_factory=list)
    config_refs: list[ConfigRef] = field(default_factory=list)
    client_optimizers: list[ClientOptimizer] = field(default_factory=list)
    cpu_optimizer: bool = False  # DeepSpeedCPUAdam & co. built in the script
    hf_trainer: bool = False
    hf_args_from_command_line: bool = False  # HfArgumentParser: `--deepspeed x.json` reaches TrainingArguments
    hf_lr_scheduler: Optional[str] = None  # TrainingArguments(lr_scheduler_type=...)
    accelerate: bool = False
    lightning: list[LightningSite] = field(default_factory=list)
    lightning_optimizers: list[ClientOptimizer] = field(default_factory=list)  # in configure_optimizers
    spawns: list[Spawn] = field(default_factory=list)
    loader_workers: list[LoaderWorkers] = field(default_factory=list)
    ports: list[PortLiteral] = field(default_factory=list)
    saves: list[WeightSave] = field(default_factory=list)
    argparse_options: dict = field(default_factory=dict)  # option string -> (dest, default)
    env_sets: dict = field(default_factory=dict)  # NAME -> (literal value or None, Span), set in the script
    sets_num_threads: bool = False  # torch.set_num_threads(...) in the script

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

    def span(self, node: ast.AST) -> Span:
        return self.f.lines.span_of_node(node)

    # -- argparse --------------------------------------------------------------------------
    def read_argparse(self) -> None:
        for site in self.f.method_calls("add_argument"):
            strings = [_literal(a) for a in site.node.args]
            options = [s for s in strings if isinstance(s, str) and s.startswith("-")]
            if not options:
                continue
            dest = _literal(site.keyword("dest"))
            if not isinstance(dest, str):
                longs = [o for o in options if o.startswith("--")]
                dest = (longs[0] if longs else options[0]).lstrip("-").replace("-", "_")
            default = _literal(site.keyword("default"))
            for option in options:
                self.out.argparse_options[option] = (dest, default if isinstance(default, str) else None)
        if self.f.calls_to("deepspeed.add_config_arguments"):
            for option in DEEPSPEED_CONFIG_OPTIONS:
                self.out.argparse_options.setdefault(option, ("deepspeed_config", None))

    def options_for(self, dest: str) -> tuple[tuple, Optional[str]]:
        options = tuple(o for o, (d, _) in self.out.argparse_options.items() if d == dest)
        defaults = [default for o, (d, default) in self.out.argparse_options.items() if d == dest and default]
        return options, (defaults[0] if defaults else None)

    def assigned_before(self, name: str, site_node: ast.AST) -> list:
        """Assignments to `name` in the call's scope (else the module) that end before the call."""
        ctx = self.f.context_of(site_node)
        scope = ctx.function if ctx else None
        candidates = self.f.assignments_to(name, scope) or self.f.assignments_to(name, None)
        line = getattr(site_node, "lineno", 10**9)
        return [a for a in candidates if (a.node.end_lineno or a.node.lineno) < line]

    # -- following a value -------------------------------------------------------------------
    def config_ref(self, expr: ast.AST, consumer: str, what: str, site_node: ast.AST, depth: int = 0) -> ConfigRef:
        span = self.span(expr)
        value = _literal(expr)
        if isinstance(value, str):
            return ConfigRef("literal", consumer, what, span, path=value)
        if isinstance(value, dict):
            return ConfigRef("dict", consumer, what, span, value=value)
        if isinstance(expr, ast.Dict):
            return ConfigRef("dict", consumer, what, span)
        name = dotted(expr)
        if name and "." in name:
            head, attr = name.rsplit(".", 1)
            options, default = self.options_for(attr)
            if options:
                return ConfigRef("argument", consumer, what, span, path=default, options=options)
        if isinstance(expr, ast.Call) and (self.f.callee_name(expr) or "") in ("os.path.join", "posixpath.join") \
                and expr.args and isinstance(_literal(expr.args[-1]), str) and "__file__" in ast.unparse(expr) + \
                "".join(ast.unparse(a.value) for a in self.assigned_before(getattr(expr.args[0], "id", ""), site_node)):
            # os.path.join(os.path.dirname(__file__), "ds_config.json"): next to the script
            return ConfigRef("literal", consumer, what, span, path=_literal(expr.args[-1]))
        if isinstance(expr, ast.Call):
            # json.load(open(path)) / hjson.load / yaml: follow the path argument
            inner = expr.args[0] if expr.args else None
            if isinstance(inner, ast.Call) and getattr(inner.func, "id", "") == "open" and inner.args:
                ref = self.config_ref(inner.args[0], consumer, what, site_node, depth + 1)
                return ConfigRef(ref.how, consumer, what, span, ref.path, ref.options, ref.env)
            env = _env_read(expr)
            if env:
                return ConfigRef("env", consumer, what, span, env=env)
        if isinstance(expr, ast.Subscript):
            env = _env_read(expr)
            if env:
                return ConfigRef("env", consumer, what, span, env=env)
        if isinstance(expr, ast.Name) and depth < 3:
            before = self.assigned_before(expr.id, site_node)
            refs = [self.config_ref(a.value, consumer, what, site_node, depth + 1) for a in before]
            if refs and len({(r.how, r.path, r.options, r.env) for r in refs}) == 1:
                return refs[-1]  # assigned in branches to different values: unknown
        return ConfigRef("unknown", consumer, what, span)

    def optimizer_of(self, expr: Optional[ast.AST], site_node: ast.AST, where: str) -> Optional[ClientOptimizer]:
        """The torch.optim constructor behind an `optimizer=` argument, when the script shows it."""
        if expr is None:
            return None
        if isinstance(expr, ast.Call):
            qualname = self.f.callee_name(expr)
            if qualname and qualname.startswith("torch.optim.") and qualname.count(".") == 2:
                return ClientOptimizer(qualname, self.span(expr), tuple(k.arg for k in expr.keywords if k.arg), where)
            return None
        if isinstance(expr, ast.Name):
            before = self.assigned_before(expr.id, site_node)
            found = [self.optimizer_of(a.value, a.node, where) for a in before]
            # `opt = DeepSpeedCPUAdam(...) if cpu else torch.optim.AdamW(...)` in two branches: unknown
            if found and all(found):
                return found[-1]
        return None

    # -- frameworks ----------------------------------------------------------------------------
    def read_deepspeed(self) -> None:
        for site in self.f.calls_to("deepspeed.initialize"):
            config = site.keyword("config") or site.keyword("config_params")
            ref = None
            if config is not None:
                ref = self.config_ref(config, "deepspeed", "deepspeed.initialize(config=...)", site.node)
            elif site.keyword("args") is not None or "deepspeed_config" in {d for d, _ in self.out.argparse_options.values()}:
                options, default = self.options_for("deepspeed_config")
                if options:
                    ref = ConfigRef("argument", "deepspeed", "args.deepspeed_config", self.span(site.node),
                                    path=default, options=options)
            optimizer_arg = site.keyword("optimizer")
            init = DeepSpeedInit(self.span(site.node), ref,
                                 self.optimizer_of(optimizer_arg, site.node, "deepspeed.initialize"),
                                 optimizer_arg is not None and _literal(optimizer_arg) is not None,
                                 site.keyword("mpu") is not None)
            self.out.deepspeed_inits.append(init)
            if ref is not None:
                self.out.config_refs.append(ref)
        for qual in CPU_OPTIMIZERS:
            if self.f.calls_to(qual):
                self.out.cpu_optimizer = True

    def read_hf(self) -> None:
        self.out.hf_trainer = bool(self.f.calls_to(*HF_TRAINERS))
        self.out.hf_args_from_command_line = bool(self.f.calls_to("transformers.HfArgumentParser"))
        self.out.accelerate = bool(self.f.calls_to("accelerate.Accelerator"))
        for site in self.f.calls_to(*HF_TRAINING_ARGS):
            value = site.keyword("deepspeed")
            if value is not None:
                self.out.config_refs.append(self.config_ref(value, "hf", "TrainingArguments(deepspeed=...)", site.node))
            scheduler = _literal(site.keyword("lr_scheduler_type"))
            if isinstance(scheduler, str):
                self.out.hf_lr_scheduler = scheduler
        for site in self.f.calls_to("accelerate.utils.DeepSpeedPlugin", "accelerate.DeepSpeedPlugin"):
            value = site.keyword("hf_ds_config") or (site.node.args[0] if site.node.args else None)
            if value is not None:
                self.out.config_refs.append(self.config_ref(value, "accelerate", "DeepSpeedPlugin(hf_ds_config=...)", site.node))

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
                    found = self.optimizer_of(node, node, "configure_optimizers")
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
            model = semantic_model(self.f)
            source = argparse_source(model, model.value_of(devices_node))
            if source is not None:
                default = _literal(source[1]) if source[1] is not None else UNKNOWN
                devices = default if isinstance(default, int) and not isinstance(default, bool) else UNKNOWN
                devices_options = argparse_options(model, source[0]) if devices is not UNKNOWN else ()
        nodes = _literal(site.keyword("num_nodes")) if site.keyword("num_nodes") is not None else 1
        strategy_node = site.keyword("strategy")
        strategy_node = self.follow(strategy_node, site.node)
        strategy = strategy_class = kwargs = config = None
        complete = True
        if strategy_node is not None:
            value = _literal(strategy_node)
            if isinstance(value, str):
                strategy = value
            elif isinstance(strategy_node, ast.Call):
                qualname = self.f.callee_name(strategy_node) or ""
                strategy_class = qualname.rsplit(".", 1)[-1] or None
                if qualname in DEEPSPEED_STRATEGY or strategy_class == "DeepSpeedStrategy":
                    kwargs = {}
                    for kw in strategy_node.keywords:
                        if kw.arg is None:
                            complete = False
                            continue
                        if kw.arg == "config":
                            config = self.config_ref(kw.value, "lightning" if kind == "trainer" else "fabric",
                                                     "DeepSpeedStrategy(config=...)", strategy_node)
                            continue
                        literal = _literal(kw.value)
                        if literal is UNKNOWN:
                            complete = False
                        else:
                            kwargs[kw.arg] = literal
                    if strategy_node.args:
                        complete = False
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
            config=config, cluster_environment=environment, devices_options=devices_options)

    def follow(self, expr: Optional[ast.AST], site_node: ast.AST) -> Optional[ast.AST]:
        """A name assigned once before the call stands for its value (`strategy = DeepSpeedStrategy(...)`)."""
        if isinstance(expr, ast.Name):
            before = self.assigned_before(expr.id, site_node)
            if len(before) == 1:
                return before[0].value
        return expr

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
            if value is None:
                continue
            literal = _literal(value)
            per_machine = any(isinstance(n, ast.Call) and (self.f.callee_name(n) or "") in
                              ("os.cpu_count", "multiprocessing.cpu_count", "psutil.cpu_count")
                              for n in ast.walk(value))
            self.out.loader_workers.append(LoaderWorkers(self.span(value), literal if isinstance(literal, int) else None,
                                                         per_machine))
        for site in self.f.calls_to("torch.distributed.init_process_group"):
            init = _literal(site.keyword("init_method"))
            if isinstance(init, str) and init.startswith("tcp://"):
                port = init.rsplit(":", 1)[-1]
                if port.isdigit():
                    self.out.ports.append(PortLiteral(self.span(site.keyword("init_method")), int(port),
                                                      f"init_method={init!r}"))

    def read_env_sets(self) -> None:
        for node, _ in self.f.of_type(ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and dotted(target.value) in ("os.environ", "environ"):
                    key = _literal(target.slice)
                    if isinstance(key, str):
                        value = _literal(node.value)
                        literal = str(value) if isinstance(value, (str, int)) else None
                        self.out.env_sets[key] = (literal, self.span(node))
                        ctx = self.f.context_of(node)
                        guarded = ctx is not None and any("environ" in ast.unparse(g.test) or "MASTER_PORT" in ast.unparse(g.test)
                                                          for g, _ in ctx.guards)
                        if key == "MASTER_PORT" and literal and literal.isdigit() and not guarded:
                            self.out.ports.append(PortLiteral(self.span(node), int(literal),
                                                              f"os.environ[\"MASTER_PORT\"] = {literal!r}"))
        for key, (value, span) in self.out.env_sets.items():
            if key == "PL_DEEPSPEED_CONFIG_PATH" and value:
                self.out.config_refs.append(ConfigRef("literal", "lightning", "os.environ['PL_DEEPSPEED_CONFIG_PATH']",
                                                      span, path=value))

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
        self.read_processes()
        self.read_saves()
        self.read_threads()
        return self.out


def _env_read(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("os.environ", "environ"):
        key = _literal(node.slice)
        return key if isinstance(key, str) else None
    if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute):
        if node.func.attr == "getenv" or (node.func.attr == "get" and dotted(node.func.value) in ("os.environ", "environ")):
            key = _literal(node.args[0])
            return key if isinstance(key, str) else None
    return None


@summary_extractor("setup")
def extract_setup_facts(facts: ScriptFacts) -> ScriptSetupFacts:
    """The setup facts of one script (see the module docstring)."""
    return _Extractor(facts).run()
