"""Shared facts about how a script runs: does it start a multi-process job, and which
framework already does the distributed plumbing (devices, wrapping, sampling)?

Rules ask these questions through one place so that they agree with each other.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property
from typing import Optional

from .cuda import DDP, FSDP
from .script import CallSite, ScriptFacts, literal as _literal

FULLY_SHARD = "torch.distributed.fsdp.fully_shard"
DISTRIBUTED_SAMPLER = "torch.utils.data.DistributedSampler"

LIGHTNING_TRAINERS = ("lightning.pytorch.Trainer",)
FABRIC = ("lightning.fabric.Fabric",)
HF_TRAINERS = ("transformers.Trainer", "transformers.Seq2SeqTrainer", "trl.SFTTrainer", "trl.DPOTrainer",
               "trl.GRPOTrainer", "trl.RewardTrainer", "trl.PPOTrainer")
ACCELERATOR = ("accelerate.Accelerator",)
RANK_ENV_VARS = ("LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE")
_DISTRIBUTED_STRATEGY_WORDS = ("ddp", "deepspeed", "fsdp", "horovod", "xla", "hpu_parallel")


@dataclass(frozen=True)
class Evidence:
    """Why dslint believes something: what was seen, and where."""

    what: str
    node: ast.AST
    # A rank variable read or a --local_rank option: a script accepts them to be launchable, a
    # helper (a shared argument parser, `os.environ.get("WORLD_SIZE", 1)`) whatever runs it.
    weak: bool = False


def _single_process_group(site: CallSite) -> bool:
    """`init_process_group("fake", ...)` or `world_size=1`: one process (tests, tracing tools)."""
    if site.attr != "init_process_group":
        return False
    backend = _literal(site.argument(0, "backend"))
    return backend == "fake" or _literal(site.keyword("world_size")) == 1


def trainer_is_multiprocess(site: CallSite) -> Optional[bool]:
    """Does this Lightning Trainer/Fabric construction ask for several processes?

    True for devices > 1, devices=-1/"-1"/a list of several, num_nodes > 1, or a distributed
    strategy (string or object); False for literal single-device settings; None when unknown.
    """
    strategy = site.keyword("strategy")
    if strategy is not None:
        value = _literal(strategy)
        if isinstance(value, str):
            if any(word in value.lower() for word in _DISTRIBUTED_STRATEGY_WORDS):
                return True
        elif isinstance(strategy, ast.Call):
            return True
    nodes = _literal(site.keyword("num_nodes"))
    if isinstance(nodes, int) and nodes > 1:
        return True
    devices = site.keyword("devices")
    if devices is None:
        devices = site.keyword("gpus")
    if devices is None:
        return False  # Lightning's default "auto" picks all GPUs, but with no strategy asked
    value = _literal(devices)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value > 1 or value == -1
    if isinstance(value, str):
        if value.strip() in ("-1", "auto"):
            return None if value.strip() == "auto" else True
        if value.strip().isdigit():
            return int(value) > 1
        return "," in value.strip(", ")
    if isinstance(value, (list, tuple)):
        return len(value) > 1
    return None


class DistributedFacts:
    """Answers to "how does this script run?" built from ScriptFacts."""

    def __init__(self, facts: ScriptFacts):
        self.facts = facts

    @cached_property
    def multiprocess_evidence(self) -> list[Evidence]:
        """Everything that shows the script runs as several processes (empty: single process)."""
        f = self.facts
        found: list[Evidence] = []
        for name, what in (
            ("torch.distributed.init_process_group", "calls torch.distributed.init_process_group"),
            ("torch.distributed.device_mesh.init_device_mesh", "calls init_device_mesh"),
            ("deepspeed.initialize", "calls deepspeed.initialize"),
            ("deepspeed.init_distributed", "calls deepspeed.init_distributed"),
            ("torch.multiprocessing.spawn", "starts processes with torch.multiprocessing.spawn"),
            ("torch.multiprocessing.start_processes", "starts processes with start_processes"),
            ("accelerate.Accelerator", "uses HF Accelerate"),
            # A DDP/FSDP wrapper or a DistributedSampler needs a process group of several ranks to mean
            # anything; it may be started elsewhere (a helper, a framework), so these count on their own.
            (DDP, "wraps the model in DistributedDataParallel"),
            (FSDP[0], "shards the model with FSDP"),
            (FSDP[1], "shards the model with FSDP"),
            (FULLY_SHARD, "shards the model with fully_shard"),
            (DISTRIBUTED_SAMPLER, "reads its data through a DistributedSampler"),
        ):
            found += [Evidence(what, s.node) for s in f.calls_to(name) if not _single_process_group(s)]
        for site in f.calls_to(*LIGHTNING_TRAINERS, *FABRIC):
            if trainer_is_multiprocess(site):
                found.append(Evidence(f"builds a Lightning {site.attr} with several devices or a distributed strategy", site.node))
        for access in self.rank_env_accesses:
            found.append(Evidence(f"reads {access.key} from the environment (set by torchrun/deepspeed)", access.node,
                                  weak=True))
        for site in f.method_calls("add_argument"):
            if site.node.args and _literal(site.node.args[0]) in ("--local_rank", "--local-rank"):
                found.append(Evidence("accepts --local_rank (passed by the deepspeed/torch.distributed launchers)", site.node,
                                      weak=True))
        return found

    @cached_property
    def rank_env_accesses(self) -> list:
        """Reads (not writes) of the rank variables a launcher sets, through facts/values.py."""
        from .bindings import semantic_model
        from .values import env_accesses

        return [a for a in env_accesses(semantic_model(self.facts)) if a.kind == "read" and a.key in RANK_ENV_VARS]

    @property
    def is_multiprocess(self) -> bool:
        return bool(self.multiprocess_evidence)

    @cached_property
    def uses_plain_process_group(self) -> bool:
        """torch.distributed / DDP done by hand (not through Lightning, Accelerate or HF Trainer)."""
        return bool(self.facts.calls_to("torch.distributed.init_process_group", "torch.nn.parallel.DistributedDataParallel"))

    @cached_property
    def framework_places_devices(self) -> Optional[str]:
        """Name of a framework that assigns each rank its device, when the script uses one."""
        f = self.facts
        if f.calls_to(*ACCELERATOR):
            return "HF Accelerate"
        if f.calls_to(*FABRIC):
            return "Lightning Fabric"
        if f.calls_to(*LIGHTNING_TRAINERS) or f.uses("lightning") or f.uses("pytorch_lightning"):
            return "Lightning"
        if f.calls_to(*HF_TRAINERS):
            return "the HF Trainer"
        return None

    @cached_property
    def framework_shards_data(self) -> Optional[str]:
        """Name of a framework that gives each rank its share of the data, when one does."""
        f = self.facts
        if f.method_calls("prepare") and f.calls_to(*ACCELERATOR):
            return "Accelerate's prepare()"
        if f.method_calls("prepare_data_loader") or f.calls_to("accelerate.data_loader.prepare_data_loader"):
            return "Accelerate's prepare_data_loader()"
        if f.method_calls("setup_dataloaders") and f.calls_to(*FABRIC):
            return "Fabric's setup_dataloaders()"
        if f.calls_to(*LIGHTNING_TRAINERS) or f.uses("lightning.pytorch") or f.uses("pytorch_lightning"):
            return "the Lightning Trainer"
        if f.calls_to(*HF_TRAINERS):
            return "the HF Trainer"
        for site in f.calls_to("deepspeed.initialize"):
            if site.keyword("training_data") is not None:
                return "deepspeed.initialize(training_data=...)"
        return None


def distributed_facts(facts: ScriptFacts) -> DistributedFacts:
    return facts.derived("distributed", DistributedFacts)


def evidence_by_function(facts: ScriptFacts) -> dict:
    """The first strong multi-process evidence (a call that starts or needs a world of several
    processes, not a `weak` one) in each function, keyed by the id of the innermost function (a def
    or a lambda) that holds it; None for code that runs at import time."""
    out: dict = {}
    for evidence in sorted((e for e in distributed_facts(facts).multiprocess_evidence if not e.weak),
                           key=lambda e: (e.node.lineno, e.node.col_offset)):
        where = facts.context_of(evidence.node)
        key = id(where.function) if where is not None and where.function is not None else None
        out.setdefault(key, evidence)
    return out


# -- Accelerate's prepare() ------------------------------------------------------------------------
# Accelerator(...) keywords that make prepare() wrap the model other than in DDP (or that may: **kwargs).
_SHARDING_PLUGINS = ("deepspeed_plugin", "deepspeed_plugins", "fsdp_plugin", "megatron_lm_plugin", "torch_tp_plugin",
                     "parallelism_config")
_ACCELERATORS = (*ACCELERATOR, "accelerate.accelerator.Accelerator")
# What makes prepare() skip DDP (no parameter requires grad) or another framework wrap the model.
_FREEZES = frozenset(("requires_grad_", "requires_grad", "parameters", "named_parameters", "apply", "modules",
                      "named_modules", "children"))


@dataclass(frozen=True)
class PreparedModel:
    """`model = accelerator.prepare(model)` / `net, opt = accelerator.prepare(net, opt)`: the name
    bound to the element of prepare's result at one argument's position."""

    binding: "object"  # bindings.Binding of that name
    call: ast.Call  # the prepare(...) call
    argument: ast.expr  # what was passed at that position
    accelerator: Optional[ast.Call]  # the Accelerator(...) built in this module; None: built elsewhere


def prepared_models(facts: ScriptFacts, model) -> list[PreparedModel]:
    """The elements of `accelerator.prepare(...)` results that become DistributedDataParallel in a
    multi-process DDP launch (accelerator.py prepare_model: `self.multi_device` and any parameter
    requiring grad). Only where that is the sole wrapper prepare may use: the Accelerator is built
    in this module without a DeepSpeed/FSDP/Megatron/TP plugin or `**kwargs` (or is an
    `accelerator`/`self.accelerator` of a module that imports accelerate: built elsewhere), the
    module never names DeepSpeed, FSDP or Megatron (an environment switch, a distributed_type test),
    and the model passed (a name, or a call building it) is not frozen, handed to other code or
    read for its parameters in the function before prepare (an optimizer over it, `requires_grad_`)."""
    sites = [s for s in facts.method_calls("prepare") if s.qualname is None and isinstance(s.node.func, ast.Attribute)]
    if not sites:
        return []
    text = facts.text.lower()
    if any(word in text for word in ("deepspeed", "fsdp", "fullyshardeddataparallel", "megatron")):
        return []
    out = []
    for site in sites:
        call = site.node
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        built = _accelerator_of(facts, model, call.func.value)
        if built is False:
            continue
        stmt = site.ctx.parent
        if not isinstance(stmt, ast.Assign) or stmt.value is not call or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and len(call.args) == 1:
            named = [(target, call.args[0])]
        elif isinstance(target, ast.Tuple) and len(target.elts) == len(call.args):
            named = [(t, a) for t, a in zip(target.elts, call.args) if isinstance(t, ast.Name)]
        else:
            continue
        scope = model.scope_of(stmt)
        for name, argument in named:
            binding = next((b for b in scope.bindings.get(name.id, ()) if b.target is name), None)
            if binding is not None and _plain_model_given(model, argument, call):
                out.append(PreparedModel(binding, call, argument, built))
    return out


def _accelerator_of(facts: ScriptFacts, model, receiver: ast.expr):
    """The Accelerator(...) call the receiver holds (built here, no sharding plugin); None for an
    `accelerator` built elsewhere; False when it may be something else or may shard."""
    values = model.values_of(receiver)
    made = [v for v in values if isinstance(v, ast.Call) and model.resolve(v.func) in _ACCELERATORS]
    if values and len(made) == len(values):
        if len(made) != 1 or any(k.arg is None or k.arg in _SHARDING_PLUGINS for k in made[0].keywords):
            return False
        return made[0]
    if made or facts.calls_to(*_ACCELERATORS):
        return False  # built here, but other values may reach the receiver too
    last = receiver.attr if isinstance(receiver, ast.Attribute) else receiver.id if isinstance(receiver, ast.Name) else ""
    return None if last == "accelerator" and facts.uses("accelerate") else False


def _plain_model_given(model, argument: ast.expr, call: ast.Call) -> bool:
    if isinstance(argument, ast.Call):
        return True  # `accelerator.prepare(Net())`
    if not isinstance(argument, ast.Name):
        return False
    reaching = model.reaching(argument.id, argument)
    if not reaching or any(b.kind not in ("assignment", "annotated") for b in reaching):
        return False  # a parameter, a global: the caller may have frozen it
    function = model.function_of(call) or model.tree
    before = (call.lineno, call.col_offset)
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == argument.id and isinstance(node.ctx, ast.Load)) \
                or (node.lineno, node.col_offset) >= before:
            continue
        child, holder, chain = node, model.parent_of(node), []
        while isinstance(holder, ast.Attribute):
            if holder.attr in _FREEZES:
                return False
            chain.append(holder.attr)
            child, holder = holder, model.parent_of(holder)
        if {"config", "generation_config"} & set(chain):
            continue  # `model.config.x`, `hasattr(model.generation_config, ...)`: settings, no module
        if isinstance(holder, ast.Call) and holder.func is not child:
            return False  # handed to other code (a freeze helper, an optimizer, get_peft_model)
        if isinstance(holder, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and holder.value is child:
            return False  # an alias of the model or a submodule, which other code may freeze
    return True
