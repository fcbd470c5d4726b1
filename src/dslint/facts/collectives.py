"""Calls every rank must make: collectives and collective checkpoint APIs, and which of them only
some ranks reach.

`CollectiveFinder.classify` knows what is collective (torch.distributed and deepspeed.comm,
MPI, DCP and FSDP state dicts, DeepSpeed engines, Accelerate, Fabric, Lightning);
`find_gated_collectives` pairs each with the rank gate in front of it (facts/conditions.py),
through this module's helpers; `collective_functions` names the functions that reach a collective
on every rank that calls them (what another module's call under a rank gate must know).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..sources.names import dotted
from .conditions import (LEAVES, RANK_TEXT_WORDS, RankGate, leaves_after, opens_gate, rank_gate, rank_tests,
                         ranked_groups, runs_after_skipping, same_group, under_zero3)
from .bindings import partial_calls
from .cuda import FSDP
from .script import CallSite, Context, ScriptFacts, literal

COLLECTIVE = "collective"
CHECKPOINT = "checkpoint"

# torch.distributed / deepspeed.comm functions every rank of the group must call.
_DIST_COLLECTIVES = frozenset((
    "barrier", "monitored_barrier", "all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor",
    "_all_gather_base", "reduce", "reduce_scatter", "reduce_scatter_tensor", "_reduce_scatter_base", "broadcast",
    "broadcast_object_list", "gather", "gather_object", "scatter", "scatter_object_list", "all_to_all",
    "all_to_all_single", "new_group", "new_subgroups", "all_reduce_coalesced", "inference_all_reduce",
))
# Where each collective takes its `group` positionally (torch.distributed's signatures; a test
# checks this table against the installed torch).
GROUP_POSITION = {
    "barrier": 0, "monitored_barrier": 0, "all_reduce": 2, "all_gather": 2, "all_gather_object": 2,
    "all_gather_into_tensor": 2, "reduce": 3, "reduce_scatter": 3, "reduce_scatter_tensor": 3, "broadcast": 2,
    "broadcast_object_list": 2, "gather": 3, "gather_object": 3, "scatter": 3, "scatter_object_list": 3,
    "all_to_all": 2, "all_to_all_single": 4,
}
# mpi4py communicator methods every rank of the communicator must call (lower case: Python
# objects, capitalised: buffers).
_MPI_COLLECTIVES = frozenset((
    "bcast", "Bcast", "barrier", "Barrier", "allreduce", "Allreduce", "reduce", "Reduce", "gather", "Gather",
    "allgather", "Allgather", "scatter", "Scatter", "alltoall", "Alltoall",
))
_DIST_MODULES = ("torch.distributed.", "deepspeed.comm.", "deepspeed.comm.comm.")
_DCP_CALLS = frozenset((
    "torch.distributed.checkpoint.save", "torch.distributed.checkpoint.async_save",
    "torch.distributed.checkpoint.load", "torch.distributed.checkpoint.save_state_dict",
    "torch.distributed.checkpoint.load_state_dict", "torch.distributed.checkpoint.state_dict.get_state_dict",
    "torch.distributed.checkpoint.state_dict.get_model_state_dict",
    "torch.distributed.checkpoint.state_dict.get_optimizer_state_dict",
))
_ENGINE_SAVE = "a DeepSpeed engine's save must be called on all processes (each rank writes its own shard; there are " \
    "barriers inside)"
_FSDP_GATHERS = ("full_optim_state_dict", "optim_state_dict", "summon_full_params", "sharded_optim_state_dict")
# The state-dict types whose module state_dict()/load_state_dict() hooks unshard (all-gather) the
# parameters (torch/distributed/fsdp/_state_dict_utils.py: _full_/_sharded_pre_state_dict_hook →
# _common_unshard_pre_state_dict_hook; the load hooks → _enter_unshard_params_ctx); LOCAL_STATE_DICT
# reads the local shard only.
_UNSHARDING_TYPES = ("FULL_STATE_DICT", "SHARDED_STATE_DICT")
BARRIERS = ("barrier", "monitored_barrier", "wait_for_everyone")
# Every callee name `classify` may accept: a cheap first filter (most calls are none of these).
_CANDIDATE_ATTRS = frozenset(_DIST_COLLECTIVES | _MPI_COLLECTIVES | {q.rsplit(".", 1)[-1] for q in _DCP_CALLS} | set(_FSDP_GATHERS) | {
    "GatheredParameters", "wait_for_everyone", "gather_for_metrics", "pad_across_processes", "consolidate_state_dict",
    "_zero3_consolidated_16bit_state_dict", "save_state", "get_state_dict", "save_model", "save", "save_checkpoint",
    "save_16bit_model", "save_fp16_model", "log", "log_dict", "state_dict", "load_state_dict"})


@dataclass(frozen=True)
class Collective:
    kind: str  # COLLECTIVE or CHECKPOINT
    label: str  # what the user wrote, for messages: `dist.all_reduce`, `engine.save_checkpoint`
    why: str  # what makes it collective
    since: Optional[tuple] = None  # (framework, version) from which it is collective, when that changed
    # collective only when the launch runs accelerate with DeepSpeed/FSDP/Megatron-LM (decided once linked)
    launch_shards: bool = False
    # (function, parameter): `p.save_checkpoint(...)` on a parameter of a module function, collective only
    # when a caller of the program passes a DeepSpeed engine for `p` (decided once linked)
    engine_param: Optional[tuple] = None
    # `loop.engine.save_checkpoint(...)` in a module that does not import DeepSpeed (a callback the trainer
    # hands its loop): collective when a program that runs this module builds a DeepSpeed engine
    program_engine: bool = False


class CollectiveFinder:
    """Recognises the calls that every rank must make, with the receivers this module shows."""

    def __init__(self, facts: ScriptFacts):
        self.facts = facts
        self.uses_lightning = facts.uses("lightning") or facts.uses("pytorch_lightning")
        self.uses_deepspeed = facts.uses("deepspeed")
        self.engines = self._assigned_from("deepspeed.initialize", first_only=True)
        self.accelerators = self._assigned_from("accelerate.Accelerator")
        self.fabrics = self._assigned_from("lightning.fabric.Fabric")
        text = facts.text.lower()
        # Accelerate's save APIs are collective only with DeepSpeed/FSDP, which the script must show.
        self.shards_with_accelerate = any(w in text for w in ("deepspeed", "fsdp", "fullyshardeddataparallel"))
        self._fsdp_module: Optional[bool] = None  # `_state_dict_candidates`, computed on first need
        self.set_state_dict_types: list = []
        self.lightning_classes = {
            name for name, cls in facts.classes.items()
            if any("Lightning" in (facts.resolve(b) or dotted(b) or "") for b in cls.bases)
        }

    def _assigned_from(self, qualname: str, first_only: bool = False) -> set[str]:
        names = set()
        for site in self.facts.calls_to(qualname):
            parent = site.ctx.parent
            if isinstance(parent, ast.Assign) and parent.value is site.node:
                for target in parent.targets:
                    if isinstance(target, (ast.Tuple, ast.List)):
                        elements = target.elts[:1] if first_only else target.elts
                        names.update(filter(None, (dotted(e) for e in elements)))
                    elif dotted(target):
                        names.add(dotted(target))
        return names

    def _receiver_is(self, receiver: Optional[str], known: set[str], word: str) -> bool:
        if not receiver:
            return False
        return receiver in known or receiver.rsplit(".", 1)[-1].lower() == word

    def classify(self, site: CallSite) -> Optional[Collective]:
        attr, receiver = site.attr, site.receiver
        if attr not in _CANDIDATE_ATTRS:
            return None
        q = site.qualname or ""
        label = f"{receiver}.{attr}" if receiver else attr
        for prefix in _DIST_MODULES:
            if q.startswith(prefix) and q[len(prefix):] in _DIST_COLLECTIVES:
                if self._subgroup(site) and not self._gated_within_group(site):
                    return None
                return Collective(COLLECTIVE, label, "a torch.distributed collective")
        if q.startswith("mpi4py.MPI.") and attr in _MPI_COLLECTIVES:
            return Collective(COLLECTIVE, label, "an MPI collective")
        if q in _DCP_CALLS:
            return Collective(CHECKPOINT, label, "torch.distributed.checkpoint runs collectives to plan and write the shards")
        if attr in _FSDP_GATHERS and "FullyShardedDataParallel" in q:
            return Collective(CHECKPOINT, label, "FSDP gathers the shards from every rank")
        if attr in ("state_dict", "load_state_dict"):
            return self._fsdp_state_dict(site, label)
        if q == "deepspeed.zero.GatheredParameters":
            return Collective(COLLECTIVE, label, "it all-gathers the ZeRO-3 partitions on every rank")
        if attr in ("wait_for_everyone", "gather_for_metrics", "pad_across_processes"):
            return Collective(COLLECTIVE, label, "Accelerate synchronises every process here")
        if attr in ("consolidate_state_dict", "_zero3_consolidated_16bit_state_dict"):
            return Collective(CHECKPOINT, label, "it gathers the optimizer/model shards from every rank")
        if self._receiver_is(receiver, self.accelerators, "accelerator"):
            if attr in ("gather", "reduce"):
                return Collective(COLLECTIVE, label, "Accelerate's gather/reduce is a collective")
            if attr in ("save_state", "get_state_dict", "save_model") and self.shards_with_accelerate:
                return Collective(CHECKPOINT, label, "this script runs Accelerate with DeepSpeed or FSDP, where "
                                  f"{attr} gathers or saves every rank's shard")
            if attr == "save_state":  # accelerator.py save_state: model.save_checkpoint / save_fsdp_model
                return Collective(CHECKPOINT, label, "with DeepSpeed, FSDP or Megatron-LM save_state saves every "
                                  "rank's shard", launch_shards=True)
        if self._receiver_is(receiver, self.fabrics, "fabric"):
            if attr in ("barrier", "all_reduce", "all_gather", "broadcast"):
                return Collective(COLLECTIVE, label, "a Fabric collective")
            if attr == "save":
                return Collective(CHECKPOINT, label, "Fabric.save must be called on all processes")
        if self.uses_lightning:
            if receiver and receiver.rsplit(".", 1)[-1] == "strategy" and attr in ("barrier", "broadcast", "reduce", "all_gather"):
                return Collective(COLLECTIVE, label, "a Lightning strategy collective")
            if attr == "save_checkpoint" and receiver and receiver.rsplit(".", 1)[-1] == "trainer":
                # The barrier at its end came with Lightning 2.1.0 (2.0.x and 1.x write on rank 0 only).
                return Collective(CHECKPOINT, label, "Trainer.save_checkpoint must be called on all processes "
                                  "(it ends with a barrier)", since=("lightning", (2, 1)))
            if receiver == "self" and site.ctx.class_ is not None and site.ctx.class_.name in self.lightning_classes:
                if attr == "all_gather":
                    return Collective(COLLECTIVE, label, "LightningModule.all_gather is a collective")
                if attr in ("log", "log_dict") and literal(site.keyword("sync_dist")) is True:
                    return Collective(COLLECTIVE, f"{label}(..., sync_dist=True)",
                                      "sync_dist=True reduces the value across all processes")
        if attr in ("save_checkpoint", "save_16bit_model", "save_fp16_model"):
            if self.uses_deepspeed and (receiver in self.engines or (
                    receiver and "engine" in receiver.rsplit(".", 1)[-1].lower())):
                return Collective(CHECKPOINT, label, _ENGINE_SAVE)
            param = self._parameter_receiver(site)
            if param is not None:
                return Collective(CHECKPOINT, label, _ENGINE_SAVE, engine_param=param)
            if not self.uses_deepspeed and receiver and "." in receiver and \
                    "engine" in receiver.rsplit(".", 1)[-1].lower():
                return Collective(CHECKPOINT, label, _ENGINE_SAVE, program_engine=True)
        return None

    def _parameter_receiver(self, site: CallSite) -> Optional[tuple]:
        """(function, parameter) when the receiver is a parameter of the module function the call is
        in, never rebound there: what the function's callers pass decides what it is."""
        func, function = site.node.func, site.ctx.function
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name) \
                or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        key = _function_key(self.facts, function)
        name = func.value.id
        args = function.args
        if key is None or "." in key or name not in {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}:
            return None
        if self.facts.assignments_to(name, function) or any(
                isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(function)):
            return None
        return (key, name)

    def _fsdp_state_dict(self, site: CallSite, label: str) -> Optional[Collective]:
        """`model.state_dict()` / `load_state_dict()` on an FSDP1 wrapper: with the default
        FULL_STATE_DICT (or SHARDED) the hooks all-gather every rank's shard first. The receiver is
        an FSDP(...) value, or the module of an enclosing `with FSDP.state_dict_type(model, T)`."""
        func = site.node.func
        if site.qualname is not None or not isinstance(func, ast.Attribute) or not self._state_dict_candidates():
            return None
        receiver = dotted(func.value)
        if receiver is None:
            return None
        for block in site.ctx.withs:
            for item in block.items:
                kind = self._state_dict_type_of(item.context_expr, receiver)
                if kind is not None:  # the innermost context decides
                    return self._unsharding(kind, label)
        if self.set_state_dict_types:
            return None  # `FSDP.set_state_dict_type(...)` elsewhere may have changed the default
        from .bindings import semantic_model

        model = semantic_model(self.facts)
        wrapper = model.value_of(func.value)
        if not (isinstance(wrapper, ast.Call) and model.resolve(wrapper.func) in FSDP) or _unsharded(wrapper):
            return None
        return self._unsharding("FULL_STATE_DICT", label)

    def _state_dict_candidates(self) -> bool:
        """Does this module build an FSDP wrapper or choose a state-dict type (else no receiver is one)?"""
        if self._fsdp_module is None:
            facts = self.facts
            types = [s for s in facts.method_calls("state_dict_type") + facts.method_calls("set_state_dict_type")
                     if "FullyShardedDataParallel" in (s.qualname or "")]
            self.set_state_dict_types = [s for s in types if s.attr == "set_state_dict_type"]
            self._fsdp_module = bool(types or facts.calls_to(*FSDP))
        return self._fsdp_module

    def _state_dict_type_of(self, expr: ast.AST, receiver: str) -> Optional[str]:
        """The StateDictType name of `FSDP.state_dict_type(<receiver>, StateDictType.X, ...)`, "" when
        it cannot be read; None when `expr` is no such context for this receiver."""
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute) or expr.func.attr != "state_dict_type":
            return None
        if "FullyShardedDataParallel" not in (self.facts.resolve(expr.func) or ""):
            return None
        module = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "module"), None)
        if module is None or dotted(module) != receiver:
            return None
        kind = expr.args[1] if len(expr.args) > 1 else next((k.value for k in expr.keywords if k.arg == "state_dict_type"), None)
        name = dotted(kind) if kind is not None else None
        return name.rsplit(".", 1)[-1] if name else ""

    @staticmethod
    def _unsharding(kind: str, label: str) -> Optional[Collective]:
        if kind not in _UNSHARDING_TYPES:
            return None
        return Collective(CHECKPOINT, label, f"an FSDP {kind} unshards (all-gathers) the parameters from every rank")

    def _subgroup(self, site: CallSite) -> bool:
        """A collective over an explicit sub-group (by keyword or position) may legitimately run on
        that group's ranks only."""
        group = site.argument(GROUP_POSITION.get(site.attr), "group")
        if group is None:
            return False
        text = ast.unparse(group)
        return not (literal(group) is None and text == "None") and "WORLD" not in text

    def _gated_within_group(self, site: CallSite) -> bool:
        """The collective runs on group G under a test of the rank within that same G
        (`if dist.get_rank(group=G) == 0: dist.broadcast(x, src, group=G)`): the other members of G
        never join. A test of a rank in another group (Megatron's tp_rank guarding a pipeline-group
        broadcast) proves nothing."""
        group = site.argument(GROUP_POSITION.get(site.attr), "group")
        return any(same_group(self.facts, group, tested)
                   for guard, _ in site.ctx.guards for tested in ranked_groups(self.facts, guard.test))

    def attribute_collective(self, node: ast.Attribute) -> Optional[Collective]:
        """`trainer.log_dir` broadcasts the directory from rank 0 (a collective on every access)."""
        if self.uses_lightning and node.attr == "log_dir" and (dotted(node.value) or "").rsplit(".", 1)[-1] == "trainer":
            return Collective(COLLECTIVE, f"{dotted(node.value)}.log_dir",
                              "Trainer.log_dir broadcasts the directory from rank 0 on every access")
        return None


def _unsharded(wrapper: ast.Call) -> bool:
    """An FSDP(...) whose state dict may need no unshard: NO_SHARD (or a sharding strategy we
    cannot read) together with use_orig_params (`_should_unshard_params`), or arguments we cannot read."""
    if any(k.arg is None for k in wrapper.keywords) or len(wrapper.args) > 2:
        return True
    strategy = next((k.value for k in wrapper.keywords if k.arg == "sharding_strategy"), None)
    name = (dotted(strategy) or "").rsplit(".", 1)[-1] if strategy is not None else "FULL_SHARD"
    if name in ("FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "_HYBRID_SHARD_ZERO2"):
        return False
    orig = next((k.value for k in wrapper.keywords if k.arg == "use_orig_params"), None)
    return orig is not None and literal(orig) is not False


@dataclass
class GatedCall:
    node: ast.AST
    collective: Collective
    gate: RankGate
    via: Optional[str] = None  # helper function name when the collective is inside a helper


def _function_key(facts: ScriptFacts, function: ast.AST) -> Optional[str]:
    keys = getattr(facts, "_function_keys", None)
    if keys is None:
        keys = facts._function_keys = {id(node): key for key, node in facts.functions.items()}  # type: ignore[attr-defined]
    return keys.get(id(function))


def _callee_key(facts: ScriptFacts, site: CallSite) -> Optional[str]:
    """The module function or same-class method a call reaches, when this module defines it."""
    func = site.node.func
    if isinstance(func, ast.Name) and func.id in facts.functions:
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = site.ctx.class_
        if cls is not None and f"{cls.name}.{func.attr}" in facts.functions:
            return f"{cls.name}.{func.attr}"
    return None


def find_gated_collectives(facts: ScriptFacts) -> list[GatedCall]:
    """Every collective (direct, or inside a helper of this module) that only some ranks reach."""
    cached = getattr(facts, "_gated_collectives", None)
    if cached is not None:
        return cached
    facts._collective_functions = {}  # type: ignore[attr-defined]
    finder = CollectiveFinder(facts)
    direct: list[tuple[ast.AST, Collective, Context]] = []  # (node, collective, its context)
    for site in (*facts.calls, *partial_calls(facts)):  # `save = functools.partial(engine.save_checkpoint, d)`
        found = finder.classify(site)
        if found is not None:
            direct.append((site.node, found, site.ctx))
    for node, where in (facts.of_type(ast.Attribute) if finder.uses_lightning else ()):
        found = finder.attribute_collective(node)
        if found is not None:
            direct.append((node, found, where))

    gated: list[GatedCall] = []
    # helper key -> (collective, line, flags) for helpers that reach a collective on every rank that
    # calls them; flags: the parameters (default False) one of which guards every collective it reaches
    bearing: dict[str, tuple[Collective, int, tuple]] = {}
    for node, found, where in direct:
        gate = rank_gate(facts, node, where)
        if gate is not None and not _other_branch_matches(facts, node, gate, found, direct):
            gated.append(GatedCall(node, found, gate))
            continue
        function = where.function
        key = _function_key(facts, function) if function is not None and not found.launch_shards \
            and found.engine_param is None else None
        if key:
            bearing[key] = _merged(bearing.get(key), (found, node.lineno, _flag_guards(facts, function, where)))
    helper_calls = [(site, key) for site in facts.calls if (key := _callee_key(facts, site)) is not None] if bearing else []
    for _ in range(3):  # helpers calling helpers, a few levels deep
        grew = False
        for site, key in helper_calls:
            if key not in bearing or rank_gate(facts, site.node, site.ctx) is not None:
                continue
            function = site.ctx.function
            outer = _function_key(facts, function) if function is not None else None
            if not outer or outer == key or not _turns_on(facts, site, key, bearing[key][2]):
                continue
            found, line, _ = bearing[key]
            merged = _merged(bearing.get(outer), (found, line, _flag_guards(facts, function, site.ctx)))
            if merged != bearing.get(outer):
                bearing[outer] = merged
                grew = True
        if not grew:
            break
    # (the other ranks may make the matching call through a helper too: `broadcast(x)` in both branches)
    paired = direct + [(site.node, bearing[key][0], site.ctx) for site, key in helper_calls if key in bearing]
    if bearing and gated:
        gated = [call for call in gated
                 if not _other_branch_matches(facts, call.node, call.gate, call.collective, paired, bearing)]
    for site, key in helper_calls:
        if key not in bearing:
            continue
        if site.ctx.function is not None and _function_key(facts, site.ctx.function) == key:
            continue  # recursion
        gate = rank_gate(facts, site.node, site.ctx)
        if gate is not None and _turns_on(facts, site, key, bearing[key][2], gate) \
                and not _other_branch_matches(facts, site.node, gate, bearing[key][0], paired, bearing):
            found, line, _ = bearing[key]
            gated.append(GatedCall(site.node, found, gate, via=f"{key}() (it reaches {found.label} on line {line})"))
    facts._gated_collectives = gated  # type: ignore[attr-defined]
    facts._collective_functions = bearing  # type: ignore[attr-defined]
    return gated


def collective_functions(facts: ScriptFacts) -> dict[str, tuple[Collective, int, tuple]]:
    """Functions (`name`, `Class.method`) that reach a collective on every rank that calls them:
    key -> (the collective, its line, flags). A call of one under a rank gate hangs like the
    collective, unless flags (parameters whose default is False; one of them guards every
    collective the function reaches) are given and the call passes none of them (`passes_flag`)."""
    find_gated_collectives(facts)
    return facts._collective_functions  # type: ignore[attr-defined]


def engine_param_saves(facts: ScriptFacts) -> dict[str, tuple]:
    """Module function -> its parameters whose DeepSpeed save only some ranks reach, when a caller
    passes an engine for one (`Collective.engine_param`): what the program decides."""
    out: dict[str, tuple] = {}
    for call in find_gated_collectives(facts):
        if call.collective.engine_param is not None:
            key, param = call.collective.engine_param
            if param not in out.get(key, ()):
                out[key] = out.get(key, ()) + (param,)
    return out


def _merged(old: Optional[tuple], new: tuple) -> tuple:
    """Two reasons of one function to reach a collective: unguarded wins, else either flag turns one on."""
    if old is None or (new[2] == () and old[2] != ()):
        return new
    if old[2] == () or set(new[2]) <= set(old[2]):
        return old
    return (old[0], old[1], tuple(sorted(set(old[2]) | set(new[2]))))


ZERO3_FLAG = "<zero-3>"  # (no parameter's name) a collective the function reaches only with ZeRO stage 3 on
# (no parameter's name) a collective the function makes on its first call only: under a create-once guard
ONCE_FLAG = "<once>"


def _flag_guards(facts: ScriptFacts, function: ast.AST, where: Context) -> tuple:
    """(p,) when the place runs only under `if p:` (or `if p and ...:`) of the function's own
    parameter `p`, whose default is a false constant and which the function never rebinds; (ZERO3_FLAG,)
    when it runs only with ZeRO-3 on (`if engine.zero_optimization_partition_weights():`); else ()."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ()
    if under_zero3(where, function):
        return (ZERO3_FLAG,)
    if any(in_body and _creates_once(facts, function, guard) for guard, in_body in where.guards):
        return (ONCE_FLAG,)
    for guard, in_body in where.guards:
        if not in_body or guard.lineno < function.lineno:
            continue
        test = guard.test
        names = [v for v in test.values if isinstance(v, ast.Name)] if isinstance(test, ast.BoolOp) and isinstance(
            test.op, ast.And) else [test] if isinstance(test, ast.Name) else []
        for name in names:
            default = _default_of(function, name.id)
            if isinstance(default, ast.Constant) and not default.value and not facts.assignments_to(name.id, function):
                return (name.id,)
    return ()


def _default_of(function: ast.AST, name: str) -> Optional[ast.AST]:
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip((a.arg for a in positional[len(positional) - len(args.defaults):]), args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    return defaults.get(name)


def _turns_on(facts: ScriptFacts, site: CallSite, key: str, flags: tuple, gate: Optional[RankGate] = None) -> bool:
    """Does this call of the module's function `key` reach its collective (see `collective_functions`)?
    `gate`: the rank gate the call is under; only the ranks past it would make the collective."""
    if not flags:
        return True
    function = facts.functions.get(key)
    if function is None:
        return True
    args = function.args
    params = [a.arg for a in args.posonlyargs + args.args][1 if "." in key else 0:]
    positional, keywords = call_arguments(site.node, gate_opener(facts, site, gate) if gate else None,
                                          under_zero3(site.ctx) is False)
    if gate is not None and ONCE_FLAG in flags and made_before(facts, site, lambda call: _callee_key(
            facts, CallSite(call, facts.context_of(call) or site.ctx)) == key):
        keywords += ((ONCE_FLAG, "0"),)
    return passes_flag((positional, keywords), params, flags)


def call_arguments(call: ast.Call, opens=None, without_zero3: bool = False) -> tuple:
    """(positional, keywords) of a call as plain data: per positional argument "*" (starred), "0"
    (a false constant), "g" (a value `opens(value)` says lets every rank past the call's rank
    gate when it is true: `x` in `if x or rank == 0: f(sync=x)`) or "v"; per keyword (name, or
    "**" for a splat, and "0"/"g"/"v"); `without_zero3`: the call runs only with ZeRO-3 off, kept as
    the keyword (ZERO3_FLAG, "0")."""
    def flag(value: ast.AST) -> str:
        if isinstance(value, ast.Constant) and not value.value:
            return "0"
        return "g" if opens is not None and opens(value) else "v"

    positional = tuple("*" if isinstance(a, ast.Starred) else flag(a) for a in call.args)
    keywords = tuple((k.arg or "**", flag(k.value)) for k in call.keywords)
    return positional, keywords + ((ZERO3_FLAG, "0"),) if without_zero3 else keywords


def passes_flag(arguments: tuple, params: list, flags: tuple) -> bool:
    """Does a call with these `call_arguments` pass one of the `flags` parameters a value that may be
    true (a splat may) while only some ranks make the call? ("g": when it is true every rank
    does.) `params`: the callee's positional parameters, in order."""
    positional, keywords = arguments
    if "*" in positional or any(name == "**" for name, _ in keywords):
        return True
    if ZERO3_FLAG in flags and (ZERO3_FLAG, "0") not in keywords:
        return True  # (a collective under ZeRO-3 only, called where ZeRO-3 may be on)
    if ONCE_FLAG in flags and (ONCE_FLAG, "0") not in keywords:
        return True  # (a collective on the first call only, and no call before this one has made it)
    given = [(params[i], v) for i, v in enumerate(positional) if i < len(params)] + list(keywords)
    return any(name in flags and value == "v" for name, value in given)


def gate_opener(facts: ScriptFacts, site: CallSite, gate: RankGate):
    """For `call_arguments`: does a value passed at this call let every rank past its `gate`?"""
    return lambda value: opens_gate(facts, site.node, site.ctx, value, gate)


def _other_branch_matches(facts: ScriptFacts, node: ast.AST, gate: RankGate, found: Collective, direct,
                          bearing: Optional[dict] = None) -> bool:
    """The other ranks make the matching call elsewhere: the other branch (or a function of the module
    that it hands on, see `_hands_on`), the body of the early return in front (`if rank != 0:
    barrier(); return`), what follows an early return that holds the call (`if rank == 0: barrier();
    return` ... `barrier()`), or a paired barrier. `bearing`: `collective_functions`, once known."""
    name = found.label.rsplit(".", 1)[-1]

    def matches(other_found: Collective) -> bool:
        return other_found.label.rsplit(".", 1)[-1] == name or other_found.kind == found.kind

    other = None
    if gate.if_node is not None:
        other = gate.if_node.orelse if gate.in_body else gate.if_node.body
    elif isinstance(gate.node, ast.If):  # an early return in front of the call
        other = gate.node.body
    if other:
        other_ids = {id(n) for stmt in other for n in ast.walk(stmt)}
        if any(id(candidate) in other_ids and matches(other_found) for candidate, other_found, _ in direct):
            return True
    where = facts.context_of(node)
    if other and bearing:
        klass = where.class_ if where is not None else None
        if any(key in bearing and matches(bearing[key][0]) for key in _hands_on(facts, other, klass)):
            return True
    if gate.if_node is not None and gate.in_body and where is not None and where.function is not None:
        after = rank_tests(facts).after_early_return(gate.if_node, where.function)
        if after is not None:
            start, end = after
            for candidate, other_found, other_where in direct:
                if other_where.function is where.function and start <= (candidate.lineno, candidate.col_offset) <= end \
                        and matches(other_found):
                    return True
    if gate.if_node is not None and where is not None and _paired_past_exit(facts, node, gate, where, name, direct):
        return True
    if gate.if_node is not None and where is not None and _served_by_caller_peers(facts, node, gate, where, direct):
        return True
    if gate.if_node is not None and paired_under_complement(facts, node, gate, _same_direct(direct, node, found)):
        return True
    if found.label.rsplit(".", 1)[-1] in BARRIERS and _alone_in_branch(facts, node, gate):
        # `if local_rank not in [-1, 0]: barrier()` ... `if local_rank == 0: barrier()`: each rank waits once.
        for candidate, other_found, where in direct:
            if candidate is node or other_found.label.rsplit(".", 1)[-1] not in BARRIERS:
                continue
            other_gate = rank_gate(facts, candidate, where)
            if other_gate is not None and other_gate.node is not gate.node and _alone_in_branch(facts, candidate, other_gate):
                return True
    return False


def _hands_on(facts: ScriptFacts, statements: list, klass: Optional[ast.ClassDef], depth: int = 3) -> set:
    """The module functions (and methods of `klass`, the class the statements are in, by `self.name`)
    that the statements call or pass on as a value (`button.click(fn=answer)`: a callback the server
    runs), and those that these call or pass on, `depth` levels deep. A rank-0 branch that serves
    requests (`build_ui().launch()`) reaches a callback's collectives while the other ranks wait in
    theirs."""
    prefix = f"{klass.name}." if klass is not None else None
    found: set = set()
    todo = list(statements)
    for _ in range(depth + 1):
        named = set()
        for node in (n for stmt in todo for n in ast.walk(stmt)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in facts.functions:
                named.add(node.id)
            elif prefix and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self" and prefix + node.attr in facts.functions:
                named.add(prefix + node.attr)
        named -= found
        found |= named
        todo = [facts.functions[key] for key in named]
        if not todo:
            break
    return found


# Where a collective names its root rank (`src`/`dst`) positionally (torch.distributed's signatures).
_ROOT_POSITION = {"broadcast": (1, "src"), "broadcast_object_list": (1, "src"), "reduce": (1, "dst"),
                  "gather": (2, "dst"), "gather_object": (2, "dst"), "scatter": (2, "src"),
                  "scatter_object_list": (2, "src")}


def _same_call_of(a: ast.AST, b: ast.AST, name: str) -> bool:
    """Two calls of one collective `name` with the same root rank and group (each as written, or
    both left out)."""
    if not (isinstance(a, ast.Call) and isinstance(b, ast.Call)):
        return False
    position, keyword = _ROOT_POSITION.get(name, (None, None))
    for index, word in ((position, keyword), (GROUP_POSITION.get(name), "group")):
        if word is None:
            continue
        given = [_argument(call, index, word) for call in (a, b)]
        if (given[0] is None) != (given[1] is None) or (
                given[0] is not None and ast.dump(given[0]) != ast.dump(given[1])):
            return False
    return True


def _argument(call: ast.Call, position: Optional[int], keyword: str) -> Optional[ast.AST]:
    if position is not None and len(call.args) > position and not any(
            isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _served_by_caller_peers(facts: ScriptFacts, node: ast.AST, gate: RankGate, where: Context, direct) -> bool:
    """The LBFGS signal protocol: a closure (`def closure():` inside the function `outer`) makes the
    collective under `if rank == 0:`, and `outer` calls it (or hands it on: `optimizer.step(closure)`)
    only under the same test `if rank == 0:`, whose other branch makes the same collective (same
    root rank, same group) itself, unconditionally or in a loop (`else: while True: broadcast(signal,
    src=0)`). At its other uses the collective cannot run: they are on the other side of the same
    test (`else: ... closure()`) or of another test that guards it in the closure (`if distributed:`).
    The tests read only names the closure never binds, each bound once in `outer`."""
    name = _collective_name(direct, node)
    inner = where.function
    if name is None or not isinstance(inner, ast.FunctionDef):
        return False
    outer = facts.context_of(inner)
    outer = outer.function if outer is not None else None
    if not isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    # the guards inside the closure on the way to the call, the rank gate among them
    own = [(g, side) for g, side in where.guards if _inside(g, inner)]
    if (gate.if_node, gate.in_body) not in own or not all(_bound_once(facts, g.test, inner, outer) for g, _ in own):
        return False
    gate_test = ast.dump(gate.if_node.test)
    tests = {(ast.dump(g.test), side) for g, side in own}
    uses = [n for n in ast.walk(outer) if isinstance(n, ast.Name) and n.id == inner.name and not _inside(n, inner)]
    if not uses or any(not isinstance(n.ctx, ast.Load) for n in uses) or sum(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == inner.name
            for n in ast.walk(outer)) != 1:
        return False
    served = False
    for use in uses:
        site = next((s for s in facts.calls if s.ctx.function is outer and (
            s.node.func is use or any(a is use for a in s.node.args) or any(k.value is use for k in s.node.keywords))),
            None)
        if site is None:
            return False  # stored, returned, or used in a nested function: called we cannot say where
        theirs = [(g, side) for g, side in site.ctx.guards if _inside(g, outer)]
        if any((ast.dump(g.test), not side) in tests for g, side in theirs):
            continue  # the closure's own test is false here: it makes no collective
        peer = next((i for i, (g, side) in enumerate(theirs) if ast.dump(g.test) == gate_test
                     and side == gate.in_body), None)
        if peer is None or not _peers_in_other_branch(direct, node, name, outer, theirs[:peer], theirs[peer]):
            return False
        served = True
    return served


def _collective_name(direct, node: ast.AST) -> Optional[str]:
    found = next((f for candidate, f, _ in direct if candidate is node), None)
    return found.label.rsplit(".", 1)[-1] if found is not None else None


def _inside(node: ast.AST, function: ast.AST) -> bool:
    return function.lineno <= node.lineno <= (function.end_lineno or function.lineno) and node is not function \
        and any(n is node for n in ast.walk(function))


def _bound_once(facts: ScriptFacts, test: ast.AST, inner: ast.AST, outer: ast.AST) -> bool:
    """Every name the test reads keeps one value between the calls of the closure: the closure never
    binds it, and `outer` binds it once (a parameter or one assignment)."""
    args = outer.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    for name in {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}:
        if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(inner)):
            return False
        stores = sum(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                     for n in ast.walk(outer))
        if stores + (name in params) > 1 or (stores + (name in params) == 0 and name not in facts.imports.names):
            return False
    return True


def _peers_in_other_branch(direct, node: ast.AST, name: str, outer: ast.AST, path: list, peer: tuple) -> bool:
    """The same collective in the other branch of the `peer` guard, in `outer` itself, under no further
    test (loops allowed)."""
    wanted = tuple(path) + ((peer[0], not peer[1]),)
    for candidate, found, where in direct:
        if candidate is node or where.function is not outer or found.label.rsplit(".", 1)[-1] != name:
            continue
        theirs = tuple((g, side) for g, side in where.guards if _inside(g, outer))
        if theirs == wanted and _same_call_of(candidate, node, name):
            return True
    return False


def _paired_past_exit(facts: ScriptFacts, node: ast.AST, gate: RankGate, where: Context, name: str, direct) -> bool:
    """`if start + rank < n: ...; all_gather(...); continue` and the same all_gather after the `if`
    in the loop body: the ranks that call it in the branch leave the pass (`continue`, `break`,
    `return`, `raise`) before the one after the `if`, which the other ranks call instead."""
    if_node = gate.if_node
    branch, other = (if_node.body, if_node.orelse) if gate.in_body else (if_node.orelse, if_node.body)
    leave = leaves_after(branch, node)
    if leave is None or any(isinstance(stmt, LEAVES) for stmt in other):
        return False
    function = where.function
    if isinstance(function, ast.Lambda):
        return False
    rest = runs_after_skipping(function.body if function is not None else facts.tree.body, if_node, leave)
    if not rest:
        return False
    after = {id(n) for stmt in rest for n in ast.walk(stmt)}
    return any(id(candidate) in after and other_found.label.rsplit(".", 1)[-1] == name and other_where.function is function
               for candidate, other_found, other_where in direct if candidate is not node)


def _alone_in_branch(facts: ScriptFacts, node: ast.AST, gate: RankGate) -> bool:
    """The barrier is the whole branch: the "rank 0 first, the others wait" half of a pair (after early
    exits on a test every rank answers alike: `if not dist.is_initialized(): return`)."""
    if gate.if_node is None:
        return False
    return _ends_in(gate.if_node.body if gate.in_body else gate.if_node.orelse, node)


def _ends_in(branch: list, node: ast.AST) -> bool:
    """The statements are early exits on tests every rank answers alike, then the call `node` (also in the
    `else:` of such an exit: `if not dist.is_initialized(): return` / `else: dist.barrier()`)."""
    if not branch or not all(_uniform_exit(stmt) for stmt in branch[:-1]):
        return False
    last = branch[-1]
    if isinstance(last, ast.Expr):
        return last.value is node
    return isinstance(last, ast.If) and _uniform_exit(last, with_else=True) and _ends_in(last.orelse, node)


def _uniform_exit(stmt: ast.stmt, with_else: bool = False) -> bool:
    """`if not dist.is_initialized(): return`: an early exit whose test names no rank."""
    if not (isinstance(stmt, ast.If) and (with_else or not stmt.orelse) and len(stmt.body) == 1
            and isinstance(stmt.body[0], (ast.Return, ast.Raise))):
        return False
    test = ast.unparse(stmt.test).lower()
    return not any(word in test for word in RANK_TEXT_WORDS)


def argument_constants(facts: ScriptFacts) -> dict:
    """A summary (`summary.extra["argument_constants"]`): for each imported name the module calls
    (`log`, `utils.log`, as ModuleExports.called spells it), the calls that give it something other
    than a literal constant: ((positions given a non-constant, keywords given one, `*args` or
    `**kwargs` given), ...). A call it lists nothing for passes constants only."""
    imported = set(facts.imports.names) | facts.imports.relative
    found: dict = {}
    for site in facts.calls:
        head = site.receiver.split(".", 1)[0] if site.receiver else site.attr
        if head not in imported or (site.receiver is None and not isinstance(site.node.func, ast.Name)):
            continue
        node = site.node
        star = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        positions = tuple(i for i, a in enumerate(node.args) if not isinstance(a, (ast.Constant, ast.Starred)))
        keywords = tuple(k.arg for k in node.keywords if k.arg is not None and not isinstance(k.value, ast.Constant))
        if star or positions or keywords:
            local = f"{site.receiver}.{site.attr}" if site.receiver else site.attr
            found.setdefault(local, []).append((positions, keywords, star))
    return {local: tuple(calls) for local, calls in found.items()}


def callers_pass_constants(project, path: str, function: str, params: tuple) -> bool:
    """Does every call of the module-level `function` of `path` from the other modules of the project
    give each of `params` ((parameter, position or None, its default is a constant), ...) a literal
    constant, or leave it at a constant default? At least one call; False when a module imports it
    without calling it (it may pass it on), or a caller's summary does not say (a module that
    mentions no framework: then only calls that leave every one of them unbound count)."""
    from .program_callers import _callers

    summaries = {id(s.module): s for s in project.scripts.values() if s is not None and s.module is not None}
    calls = 0
    for _, exports, called, uncalled in _callers(project.program, path, function):
        if uncalled:
            return False
        summary = summaries.get(id(exports))
        given = summary.extra.get("argument_constants") if summary is not None else None
        for local in called:
            for count, keywords, star in exports.call_shapes.get(local, ((0, (), True),)):
                calls += 1
                for name, position, constant_default in params:
                    bound = star or name in keywords or (position is not None and count > position)
                    if not bound and not constant_default:
                        return False
                    if bound and given is None:
                        return False
            for positions, keywords, star in given.get(local, ()) if given is not None else ():
                if star or any(name in keywords or position in positions for name, position, _ in params):
                    return False
    return calls > 0


def paired_under_complement(facts: ScriptFacts, node: ast.AST, gate: RankGate, same) -> bool:
    """The ranks that skip the call make the same call once, under the exact complement of its gate:
    in the other branch of the same `if` (`if rank == 0: g = make_group()` / `else: g = make_group()`),
    or in an `if` of the same block whose test is the negation of this one (`if rank != 0: barrier()`
    ... `if rank == 0: <work>; barrier()`, the "rank 0 goes first" idiom). Each side makes the call
    exactly once, as a statement of its branch (nothing in front of it leaves the block); between
    the two `if`s nothing leaves and nothing rebinds what the test reads. `same(call)`: is this call the
    same collective (same function or project helper, same group)? The pair itself is under no rank gate."""
    if_node = gate.if_node
    if if_node is None or not isinstance(node, ast.Call):
        return False
    if rank_gate(facts, if_node, facts.context_of(if_node)) is not None:
        return False  # (a pair inside `if rank < 4:`: the ranks past it never come)
    mine, theirs = (if_node.body, if_node.orelse) if gate.in_body else (if_node.orelse, if_node.body)
    if not _once_in(mine, node, same):
        return False
    if _calls_in(theirs, same):
        return any(_once_in(theirs, other, same) for other in _calls_in(theirs, same))
    block = _block_of(facts, if_node)
    if block is None:
        return False
    here = block.index(if_node)
    side = _normal_test(if_node.test, gate.in_body)
    for there, stmt in enumerate(block):
        if there == here or not isinstance(stmt, ast.If):
            continue
        for in_body in (True, False):
            wanted = _normal_test(stmt.test, in_body)
            if wanted[0] != side[0] or wanted[1] == side[1]:
                continue
            peer, rest = (stmt.body, stmt.orelse) if in_body else (stmt.orelse, stmt.body)
            if any(_calls_in(rest, same)) or not any(_once_in(peer, c, same) for c in _calls_in(peer, same)):
                continue
            low, high = sorted((here, there))
            between = block[low + 1:high]
            if any(_calls_in(between, same)) or _leaves_or_rebinds(block[low:high + 1], if_node.test):
                continue
            return True
    return False


def _same_direct(direct, node: ast.AST, found: Collective):
    """For `paired_under_complement`: a direct call of the same collective with the same root rank and group."""
    name = found.label.rsplit(".", 1)[-1]
    peers = {id(candidate) for candidate, other_found, _ in direct
             if other_found.kind == found.kind and other_found.label == found.label
             and (candidate is node or _same_call_of(candidate, node, name))}
    return lambda call: id(call) in peers


def _calls_in(statements: list, same) -> list:
    return [n for stmt in statements for n in ast.walk(stmt) if isinstance(n, ast.Call) and same(n)]


def _once_in(branch: list, node: ast.AST, same) -> bool:
    """`node` is the branch's only call of the collective, made by one of its statements on every pass
    (the statement's value or an argument of it), with nothing in front of it leaving the block."""
    if sum(1 for _ in _calls_in(branch, same)) != 1:
        return False
    for index, stmt in enumerate(branch):
        if any(n is node for n in ast.walk(stmt)):
            if not isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) or stmt.value is None \
                    or not _always_evaluates(stmt.value, node):
                return False
            return not any(isinstance(n, (ast.Return, ast.Break, ast.Continue))
                           for before in branch[:index] for n in ast.walk(before))
    return False


def _always_evaluates(expr: ast.AST, node: ast.AST) -> bool:
    """Evaluating `expr` evaluates `node`: it is `node`, or an argument (receiver) of a call that is."""
    if expr is node:
        return True
    if isinstance(expr, ast.Call):
        return any(_always_evaluates(part, node) for part in (expr.func, *expr.args, *(k.value for k in expr.keywords)))
    if isinstance(expr, (ast.Attribute, ast.Starred, ast.Await)):
        return _always_evaluates(expr.value, node)
    return False


_NEGATED = {ast.NotEq: ast.Eq, ast.IsNot: ast.Is, ast.NotIn: ast.In}


def _normal_test(test: ast.AST, truth: bool) -> tuple:
    """(the test written positively, the truth it must have): `not x` and `a != b` flip the truth, so that
    two gates are exact complements when their texts agree and their truths differ."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, truth = test.operand, not truth
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
        test, truth = ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators), not truth
    return ast.dump(test), truth


def _block_of(facts: ScriptFacts, stmt: ast.stmt) -> Optional[list]:
    """The statement list that holds `stmt`."""
    where = facts.context_of(stmt)
    root = where.function if where is not None and where.function is not None else facts.tree
    for node in ast.walk(root):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                return block
    return None


def _leaves_or_rebinds(statements: list, test: ast.AST) -> bool:
    """Something in these statements leaves the block (`return`, `break`, `continue`) or rebinds a name (or
    attribute) the test reads."""
    read = {dotted(n) for n in ast.walk(test) if isinstance(n, (ast.Name, ast.Attribute))} - {None}
    for n in (n for stmt in statements for n in ast.walk(stmt)):
        if isinstance(n, (ast.Return, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)):
            return True
        if isinstance(n, (ast.Name, ast.Attribute)) and not isinstance(n.ctx, ast.Load) and dotted(n) in read:
            return True
    return False


def _creates_once(facts: ScriptFacts, function: ast.AST, guard: ast.If) -> bool:
    """A create-once guard of the module function: `if not hasattr(fn, "_group"):` whose body sets
    `fn._group = ...`, or `if _GROUP is None:` whose body sets the module global `_GROUP` (declared
    `global _GROUP`), where nothing else in the module sets it (or deletes it) again. After the first
    call the test is false, so what the body does (`dist.new_group()`) runs once per process."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or facts.functions.get(function.name) is not function:
        return False
    test = guard.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call) \
            and isinstance(test.operand.func, ast.Name) and test.operand.func.id == "hasattr" \
            and len(test.operand.args) == 2 and not test.operand.keywords:
        owner, attr = test.operand.args
        if not (isinstance(owner, ast.Name) and owner.id == function.name and isinstance(attr, ast.Constant)
                and isinstance(attr.value, str)):
            return False

        def sets(target: ast.AST) -> bool:
            return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == function.name and target.attr == attr.value
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        name = test.left.id
        if not any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(function)):
            return False

        def sets(target: ast.AST) -> bool:
            return isinstance(target, ast.Name) and target.id == name
    else:
        return False
    if not any(isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(sets(t) for t in (
            stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])) for stmt in guard.body):
        return False
    # no other store or delete in the module, outside its top level (where the global starts as None)
    stores = [n for stmt in facts.tree.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
              for n in ast.walk(stmt) if isinstance(n, (ast.Name, ast.Attribute)) and not isinstance(n.ctx, ast.Load)
              and sets(n)]
    return len(stores) == 1 and not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                        and n.func.id in ("delattr", "setattr") for n in ast.walk(facts.tree))


def made_before(facts: ScriptFacts, site: CallSite, same) -> bool:
    """Every rank that reaches this call has made `same` call before, in the same function: a call in an
    earlier statement of a block that holds this one, under no rank gate and no loop or `try` this call
    is not in, each `if` on its way taken on the side this call's own tests imply (`if
    dist.is_initialized(): f()` before the `else:` of `if not dist.is_initialized() or rank == 0:`),
    and nothing in the function rebinds what those tests read."""
    function = site.ctx.function
    root = function if function is not None else facts.tree
    if isinstance(root, ast.Lambda):
        return False
    known = set()
    for guard, in_body in site.ctx.guards:
        if function is not None and guard.lineno <= function.lineno:
            continue  # (both enclose the call: a guard starting after the `def` line is inside the function)
        test = guard.test
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if in_body else ast.Or):
            known.update(_normal_test(value, in_body) for value in test.values)
        known.add(_normal_test(test, in_body))
    target = _path_to(root, site.node)
    if target is None:
        return False
    stored = None
    # (the indexed call sites, not a walk of the function: for a call at module level the root is the module)
    for where in facts.calls:
        other = where.node
        if other is site.node or where.ctx.function is not function or not same(other) \
                or rank_gate(facts, other, where.ctx) is not None:
            continue
        path = _path_to(root, other)
        last = _statement(path[-1]) if path else None
        if not (isinstance(last, (ast.Expr, ast.Assign, ast.AnnAssign)) and last.value is not None
                and _always_evaluates(last.value, other)):
            continue
        if stored is None:
            stored = _stored_names(facts, root)
        if _runs_before(path, target, known, stored):
            return True
    return False


def _stored_names(facts: ScriptFacts, root: ast.AST) -> set:
    """The dotted names `root` (a function, or the module) binds or deletes, walked once per root."""
    memo = facts.derived("stored_names", lambda _: {})
    found = memo.get(id(root))
    if found is None:
        found = memo[id(root)] = {dotted(n) for n in ast.walk(root)
                                  if isinstance(n, (ast.Name, ast.Attribute)) and not isinstance(n.ctx, ast.Load)}
    return found


def _path_to(root: ast.AST, node: ast.AST) -> Optional[list]:
    """[(compound statement or root, field, index in that field)], outermost first, down to `node`'s statement."""
    def walk(owner: ast.AST) -> Optional[list]:
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(owner, field, None)
            if not isinstance(block, list):
                continue
            for index, stmt in enumerate(block):
                if not (stmt.lineno <= node.lineno <= (stmt.end_lineno or stmt.lineno)):
                    continue
                if not any(n is node for n in ast.walk(stmt)):
                    continue
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                    return None
                inner = walk(stmt)
                return [(owner, field, index)] + (inner or [])
        return None
    return walk(root)


def _runs_before(path: list, target: list, known: set, stored: set) -> bool:
    """The call at `path` runs, on every pass that reaches the one at `target`, before it."""
    split = None
    for depth, (owner, field, index) in enumerate(path):
        if depth >= len(target) or target[depth][0] is not owner or target[depth][1] != field:
            return False
        if target[depth][2] < index:
            return False
        if target[depth][2] > index:
            split = depth  # an earlier statement of a block that holds the target
            break
    if split is None:
        return False
    # from that statement down to the call, every step runs on every pass
    for step, below in zip(path[split:], path[split + 1:]):
        holder = _statement(step)
        if isinstance(holder, ast.If):
            if _normal_test(holder.test, below[1] == "body") not in known:
                return False
            read = {dotted(n) for n in ast.walk(holder.test) if isinstance(n, (ast.Name, ast.Attribute))} - {None}
            if read & stored:
                return False
        elif not isinstance(holder, (ast.With, ast.AsyncWith)):
            return False  # a loop may run no pass, a `try` may leave before the call
    return True


def _statement(step: tuple) -> ast.stmt:
    owner, field, index = step
    return getattr(owner, field)[index]
