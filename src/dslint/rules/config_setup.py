"""DSL610–DSL612, DSL614, DSL615, DSL617, DSL618: DeepSpeed config rules that need the linked setup
(world size, optimizer, how the script saves and which framework reads the config).

The config alone cannot say whether `train_batch_size` is right, or whether an offloaded
optimizer will run in DeepSpeed's CPU Adam: the launch line and the script decide. These rules
read the `TrainingSetup`s from facts/link.py.
"""
from __future__ import annotations

from typing import Iterator, Optional

from ..facts.link import TrainingSetup, link_setups
from ..facts.weight_saves import setup_weight_saves  # (registers the "weight_saves" summary extractors)
from ..facts.values import UNKNOWN
from ..fixes import append_keyword, codemod_fixer, make_fix, node_at, with_import
from ..model import Applicability, Severity
from .context import SetupContext
from .config_schema import effective
from .registry import Report, program_check, setup_rule, file_label, short

BATCH_KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")


def _int(value) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None



def batch_problem(tbs, micro, gas, world: int, size: str = "world size") -> Optional[str]:
    """What DeepSpeedConfig._set_batch_related_parameters/_batch_assertion make of the three
    values at this world size (DeepSpeed's data-parallel size, `size` names it); None when they agree."""
    if tbs is not None and micro is not None and gas is not None:
        if tbs != micro * gas * world:
            return (f"train_batch_size {tbs} != {micro} x {gas} x {world} = {micro * gas * world} (micro x accumulation "
                    f"x {size})")
        return None
    if tbs is not None and micro is not None:
        gas = tbs // micro // world
        if gas <= 0:
            return f"train_batch_size {tbs} // {micro} (micro) // {world} ({size}) gives 0 accumulation steps"
        if tbs != micro * gas * world:
            return f"train_batch_size {tbs} is not divisible by {micro} (micro) x {world} ({size})"
        return None
    if tbs is not None and gas is not None:
        micro = tbs // world // gas
        if micro <= 0:
            return f"train_batch_size {tbs} // {world} ({size}) // {gas} (accumulation) gives a micro-batch of 0"
        if tbs != micro * gas * world:
            return f"train_batch_size {tbs} is not divisible by {gas} (accumulation) x {world} ({size})"
        return None
    if tbs is not None:
        micro = tbs // world
        if micro <= 0:
            return f"train_batch_size {tbs} is smaller than the {size} {world}: the micro-batch becomes 0"
        if tbs != micro * world:
            return f"train_batch_size {tbs} is not divisible by the {size} {world}"
    return None


def data_parallel_world(setup: TrainingSetup, config: dict, project=None) -> Optional[tuple]:
    """(size, what it is) of the data-parallel world DeepSpeed checks the batch against: the world size, or
    world // K when every deepspeed.initialize of the script gets a PipelineModule of K stages (DeepSpeedConfig
    reads the module's grid); None when the files do not show it."""
    if setup.world_size is None:
        return None
    stages = {init.pipeline_stages for init in setup.facts.deepspeed_inits}
    if len(stages) == 1 and None not in stages and setup.config.consumer == "deepspeed":
        [count] = stages
        tp = config.get("tensor_parallel")
        if setup.world_size % count or "sequence_parallel_size" in config or (
                isinstance(tp, dict) and _int(tp.get("autotp_size")) not in (None, 0, 1)):
            return None  # (PipelineModule raises RuntimeError when the stages do not divide the world)
        return setup.world_size // count, f"data-parallel size: {setup.world_size} ranks / {count} stages"
    return (setup.world_size, "world size") if _data_parallel_is_world(setup, config, project) else None


def _data_parallel_is_world(setup: TrainingSetup, config: dict, project=None) -> bool:
    """Model/pipeline/sequence parallelism divide the world: then the files do not show the
    data-parallel size (a PipelineModule, tensor-parallel groups or a device mesh in the program, an
    mpu, the config's pipeline/sequence/autotp sizes)."""
    if any(init.has_mpu for init in setup.facts.deepspeed_inits):
        return False
    if project is not None and project.program.model_parallelism(setup.script_path):
        return False
    if "sequence_parallel_size" in config or "pipeline" in config and isinstance(config.get("pipeline"), dict) \
            and config["pipeline"].get("stages") not in (None, "auto", 1):
        return False
    tp = config.get("tensor_parallel")
    if isinstance(tp, dict) and _int(tp.get("autotp_size")) not in (None, 0, 1):
        return False
    return True


@setup_rule("DSL610", "batch-size-mismatch", severity=Severity.ERROR)
def batch_size_mismatch(ctx: SetupContext) -> Iterator[Report]:
    """train_batch_size must equal micro-batch x accumulation x world size of the linked launch."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        cfg = setup.config
        if setup.world_size is None or cfg.consumer in ("lightning", "fabric"):
            continue
        # a config file of the project, or a dict written in Python (the script's, or a project function's)
        doc = ctx.project.configs.get(cfg.path) if cfg.path else cfg.overlay
        where = cfg.path or cfg.key_path
        value = setup.config_value
        world = data_parallel_world(setup, value, ctx.project) if value is not None else None
        if (doc is None and not cfg.key_spans) or world is None:
            continue
        tbs, micro, gas = (_int(value.get(k)) for k in BATCH_KEYS)
        if any(value.get(k) is not None and v is None for k, v in zip(BATCH_KEYS, (tbs, micro, gas))):
            continue  # "auto" or a non-number: DSL604/DSL603 say what happens
        if tbs is None:
            continue  # micro x accumulation x world is always consistent
        problem = batch_problem(tbs, micro, gas, *world)
        span = _key_span(doc, cfg, ("train_batch_size",))
        where = _file_of(doc, span, where) if span is not None and cfg.overlay is not None else where
        if problem is None or span is None or (where, span.start_offset, setup.world_size) in seen:
            continue
        seen.add((where, span.start_offset, setup.world_size))
        given = [k for k in BATCH_KEYS if k in value]
        advice = ("drop train_batch_size" if len(given) > 1 else
                  "set train_micro_batch_size_per_gpu instead")
        related = setup.launch_related(f"starts {setup.world_size} ranks") if setup.command is not None else []
        passer = cfg.ref_path or setup.script_path  # (a generator script's json.dump is the config's own file)
        if (cfg.key_path or cfg.overlay is not None) and where != passer and cfg.ref_span is not None:
            related.append((passer, cfg.ref_span, "the script passes this config"))
        for key in BATCH_KEYS[1:] if cfg.overlay is not None else ():  # a value written in another file
            node = doc.node((key,))
            other = (node.pair_span or node.span) if node is not None else None
            if other is not None and _file_of(doc, other) != where:
                related.append((_file_of(doc, other), other, f"{key} = {node.value!r}"))
        yield Report(span, f"{problem}, so DeepSpeed raises AssertionError; {advice}", path=where, related=related)


def _key_span(doc, cfg, key: tuple):
    """Where the linked config writes `key`: its pair in the JSON document, or `"key": value` in the
    Python dict; None when neither shows it."""
    if doc is not None:
        node = doc.node(key)
        return (node.pair_span or node.span) if node is not None else None
    return cfg.key_spans.get(key)


# -- offload with a client torch optimizer ---------------------------------------------------------

SUPPORTED_KEYWORDS = {"lr", "betas", "eps", "weight_decay", "amsgrad"}


def _offload_device(setup: TrainingSetup, settings) -> Optional[str]:
    """"cpu"/"nvme" when ZeRO offloads the optimizer, as DeepSpeed reads the config (legacy `cpu_offload` too)."""
    read = effective(setup.config_value, settings)
    if read is None or read.zero_stage not in (1, 2, 3) or read.offload_optimizer_device not in ("cpu", "nvme"):
        return None
    return read.offload_optimizer_device


@setup_rule("DSL614", "offload-with-client-optimizer", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def offload_with_client_optimizer(ctx: SetupContext) -> Iterator[Report]:
    """ZeRO-Offload driven by a torch.optim optimizer the script builds itself."""
    for setup in link_setups(ctx.project, ctx.settings):
        device = _offload_device(setup, ctx.settings)
        client = setup.client_optimizer
        if device is None or client is None:
            continue
        forced = effective(setup.config_value, ctx.settings).zero_force_ds_cpu_optimizer
        consequence = ("makes deepspeed.initialize raise ZeRORuntimeException" if forced else
                       "steps in PyTorch's slow CPU code")
        fix = None
        if client.qualname in ("torch.optim.Adam", "torch.optim.AdamW") and set(client.keywords) <= SUPPORTED_KEYWORDS \
                and client.how != "partial":  # (the span of `partial(torch.optim.AdamW, ...)` is no constructor)
            adamw = client.qualname.endswith("AdamW")
            fix = make_fix("to-deepspeed-cpu-adam",
                           f"use deepspeed.ops.adam.DeepSpeedCPUAdam(..., adamw_mode={adamw}) instead",
                           Applicability.UNSAFE, row=client.span.start.row, column=client.span.start.column,
                           adamw=adamw)
        related = []
        if setup.config.path and setup.config.path in ctx.project.configs:
            node = ctx.project.configs[setup.config.path].node(("zero_optimization", "offload_optimizer"))
            if node is not None:
                related.append((setup.config.path, node.key_span or node.span, f"offload_optimizer.device = {device}"))
        elif setup.config.key_path and ("zero_optimization", "offload_optimizer") in setup.config.key_spans:
            related.append((setup.config.key_path, setup.config.key_spans[("zero_optimization", "offload_optimizer")],
                            f"offload_optimizer.device = {device}"))
        yield Report(client.span,
                     f"a client {short(client.qualname, 24)} under ZeRO-Offload {consequence}; use DeepSpeedCPUAdam "
                     "instead",
                     path=client.path or setup.script_path, fix=fix, related=related)


@codemod_fixer("to-deepspeed-cpu-adam")
def _to_deepspeed_cpu_adam(module, positions, params):
    import libcst as cst

    call = node_at(positions, cst.Call, params["row"], params["column"])
    if call is None:
        return None
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > 2 or any(a.star for a in call.args):
        return None  # torch's positional order differs from DeepSpeedCPUAdam's after lr
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if set(keywords) - SUPPORTED_KEYWORDS:
        return None
    amsgrad = keywords.get("amsgrad")
    if amsgrad is not None and not (isinstance(amsgrad.value, cst.Name) and amsgrad.value.value == "False"):
        return None
    # lr given positionally stays where it is: it is the second parameter of both optimizers
    extra = []
    if not params["adamw"]:
        extra.append(("adamw_mode", "False"))
    elif "weight_decay" not in keywords:
        extra.append(("weight_decay", "0.01"))  # torch.optim.AdamW's default; DeepSpeedCPUAdam's is 0
    new_call = call.with_changes(func=cst.Name("DeepSpeedCPUAdam"))
    for name, value in extra:
        new_call = append_keyword(new_call, name, cst.parse_expression(value))
    new_module = module.deep_replace(call, new_call)
    return with_import(new_module, "deepspeed.ops.adam", "DeepSpeedCPUAdam")


# -- ZeRO-3 saves, HF scheduler, json.load readers, Lightning accumulation --------------------------

def linked_dict_documents(project, settings, overlays: bool = False) -> list:
    """(config_dicts.DictDoc, [setups]) for each config written as a Python dict that a setup links
    (memoised on the project: the config rules and several setup rules read them). With `overlays`, also
    the configs built in program order (config_overlays.OverlayDoc), whose keys lie in several files: a
    rule that reads them reports at `_file_of(doc, span)`."""
    from ..facts.config_dicts import dict_documents

    setups = link_setups(project, settings)
    memo = project.__dict__.get("_dict_documents")
    if memo is None or memo[0] is not setups:
        every = dict_documents(setups)
        memo = project._dict_documents = (setups, every,  # type: ignore[attr-defined]
                                          [d for d in every if getattr(d[0], "file_of", None) is None])
    return memo[1] if overlays else memo[2]


def _linked(ctx: SetupContext, files_only: bool = False):
    """(setup, config document) for every setup linked to a config file of the project, or (unless
    `files_only`) to a dict written in Python (a DictDoc: not strict, NotLiteral values unknown), once per pair."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        path = setup.config.path
        if path and path in ctx.project.configs and (setup.script_path, path) not in seen:
            seen.add((setup.script_path, path))
            yield setup, ctx.project.configs[path]
    if files_only:
        return
    for doc, setups in linked_dict_documents(ctx.project, ctx.settings, overlays=True):
        for setup in {id(setup): setup for setup in setups}.values():
            yield setup, doc


def _unknown(doc, path: tuple) -> bool:
    """A value a dict config does not show (`args.stage`): the rule cannot say what DeepSpeed reads."""
    return getattr(doc, "in_python", False) and doc.unknown(path)


GATHER_KEYS = ("stage3_gather_16bit_weights_on_model_save", "gather_16bit_weights_on_model_save",
               "stage3_gather_fp16_weights_on_model_save")


@setup_rule("DSL611", "zero3-save-without-gather", fix=Applicability.UNSAFE)
def zero3_save_without_gather(ctx: SetupContext) -> Iterator[Report]:
    """ZeRO-3 and a 16-bit weights save, but the config does not gather the weights to save them."""
    from ..sources.json_edits import insert_pair_edit, replace_value_edit

    for setup, doc in _linked(ctx):
        read = effective(doc.value, ctx.settings)
        zero = doc.value.get("zero_optimization")
        saves = setup_weight_saves(ctx.project, setup) if read is not None and read.zero_stage == 3 else []
        if not isinstance(zero, dict) or not saves:
            continue
        if any(_unknown(doc, ("zero_optimization", k)) for k in GATHER_KEYS):
            continue
        current = read.stage3_gather_16bit_weights_on_model_save
        if current is True or (current == "auto" and setup.config.consumer == "accelerate"):
            continue
        key = next((k for k in GATHER_KEYS if k in zero), None)
        save_path, save_span, save_what = saves[0]
        consequence = _CONSEQUENCE[save_what]
        zero_node = doc.node(("zero_optimization",))
        fix = None
        if doc.strict:
            if key is not None:
                edit = replace_value_edit(doc, zero_node.children[key], "true")
            else:
                edit = insert_pair_edit(doc, zero_node, "stage3_gather_16bit_weights_on_model_save", "true")
            if edit is not None:
                fix = make_fix("edits", "set stage3_gather_16bit_weights_on_model_save to true", Applicability.UNSAFE,
                               edits=(edit,))
        target = zero_node.children[key].span if key else (zero_node.key_span or zero_node.span)
        why = (f"'auto' {key} (false under the HF Trainer)" if current == "auto" else
               f"{key} false" if key else "no stage3_gather_16bit_weights_on_model_save")
        yield Report(target,
                     f"ZeRO-3 with {why}: {consequence} ({file_label(save_path, 20)}:{save_span.start.row}); "
                     "set it to true",
                     path=_file_of(doc, target), fix=fix,
                     related=[(save_path, save_span, "saves 16-bit weights")])
    yield from _zero3_save_in_built_config(ctx)


_CONSEQUENCE = {"save_16bit_model": "save_16bit_model() saves nothing",
                "save_fp16_model": "save_fp16_model() saves nothing",
                "trainer.save_model": "save_model() writes no weights",
                "accelerator.get_state_dict": "get_state_dict() raises ValueError"}


def _zero3_save_in_built_config(ctx: SetupContext) -> Iterator[Report]:
    """The same for the config accelerate builds (from its launch config's deepspeed_config or a
    DeepSpeedPlugin(...) in the script): zero3_save_16bit_model false (its default) is
    stage3_gather_16bit_weights_on_model_save false."""
    from ..facts.link import built_config_where

    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        saves = setup_weight_saves(ctx.project, setup) if setup.config.consumer == "accelerate" else []
        if not saves:
            continue
        value = setup.config_value or {}
        zero = value.get("zero_optimization")
        read = effective(value, ctx.settings) if isinstance(zero, dict) else None
        if read is None or read.zero_stage != 3:
            continue
        current = zero.get("stage3_gather_16bit_weights_on_model_save")
        if current is not False:  # (True, 'auto', or a value the launch does not show)
            continue
        where = built_config_where(setup, "zero3_save_16bit_model")
        if where is None:
            continue
        path, span, name = where
        if (path, span.start_offset) in seen:
            continue
        seen.add((path, span.start_offset))
        save_path, save_span, save_what = saves[0]
        yield Report(span,
                     f"ZeRO-3 with {short(name, 30)} false: {_CONSEQUENCE[save_what]} "
                     f"({file_label(save_path, 20)}:{save_span.start.row}); set zero3_save_16bit_model to true",
                     path=path, related=[(save_path, save_span, "saves 16-bit weights")])


@setup_rule("DSL612", "scheduler-overrides-hf-trainer")
def scheduler_overrides_hf_trainer(ctx: SetupContext) -> Iterator[Report]:
    """A `scheduler` section in a config the HF Trainer reads silently replaces the Trainer's own."""
    for setup, doc in _linked(ctx):
        if setup.config.consumer != "hf" or not setup.facts.hf_trainer:
            continue
        node = doc.node(("scheduler",))
        if node is None or not isinstance(node.value, dict):
            continue
        kind = node.value.get("type")
        asked = (f"lr_scheduler_type={short(repr(setup.facts.hf_lr_scheduler), 24)}" if setup.facts.hf_lr_scheduler
                 else "lr_scheduler_type")
        flat = ", flat after warm-up" if isinstance(kind, str) and kind.lower() == "warmuplr" else ""
        yield Report(node.key_span or node.span,
                     f"this config's scheduler ({short(repr(kind), 20)}{flat}) overrides the HF Trainer's {asked}; "
                     "remove the section to use the Trainer's", path=_file_of(doc, node.key_span or node.span))


@setup_rule("DSL615", "config-not-json-for-json-load", severity=Severity.ERROR)
def config_not_json_for_json_load(ctx: SetupContext) -> Iterator[Report]:
    """Comments or trailing commas in a config that the HF Trainer, Accelerate or Lightning read
    with json.load (DeepSpeed itself reads paths with hjson and accepts them)."""
    seen = set()
    for setup, doc in _linked(ctx, files_only=True):
        consumer = setup.config.consumer
        if doc.strict or consumer not in ("hf", "accelerate", "lightning", "fabric") or setup.config.path in seen:
            continue
        seen.add(setup.config.path)
        message, row, column = doc.strict_error
        start = doc.lines.offset(row, column)
        span = doc.lines.span(start, min(start + 1, len(doc.text)))
        reader = {"hf": "the HF Trainer", "accelerate": "Accelerate", "lightning": "Lightning's DeepSpeedStrategy",
                  "fabric": "Lightning's DeepSpeedStrategy"}[consumer]
        yield Report(span,
                     f"{reader} reads this config with json.load, which fails here ({short(message, 40)}); remove the "
                     "comments and trailing commas", path=setup.config.path,
                     related=setup.launch_related("reads the config") if setup.command is not None else [])


@setup_rule("DSL617", "accumulation-in-lightning-config", severity=Severity.ERROR)
def accumulation_in_lightning_config(ctx: SetupContext) -> Iterator[Report]:
    """gradient_accumulation_steps in a DeepSpeed config passed to a Lightning Trainer."""
    for setup, doc in _linked(ctx):
        site = setup.lightning
        if setup.config.consumer != "lightning" or site is None or site.kind != "trainer":
            continue
        node = doc.node(("gradient_accumulation_steps",))
        if node is None:
            continue
        yield Report(node.pair_span or node.span,
                     "Lightning raises MisconfigurationException on gradient_accumulation_steps in the DeepSpeed "
                     "config; remove it and use Trainer(accumulate_grad_batches=...)",
                     path=_file_of(doc, node.pair_span or node.span))


# -- HF Trainer: concrete config values that disagree with TrainingArguments -------------------------

# transformers integrations/deepspeed.py, HfTrainerDeepSpeedConfig.trainer_config_process (commits
# 02348331baea and 3a80c166389f): the keys `fill_match` compares with TrainingArguments, the fields
# each is computed from, and the name HF prints for them. train_batch_size is added below (it
# needs the world size); the apex `amp.*` keys and the scheduler's total_num_steps are not checked.
HF_MATCHED_KEYS = (
    (("train_micro_batch_size_per_gpu",), ("per_device_train_batch_size",), "per_device_train_batch_size"),
    (("gradient_accumulation_steps",), ("gradient_accumulation_steps",), "gradient_accumulation_steps"),
    (("gradient_clipping",), ("max_grad_norm",), "max_grad_norm"),
    (("optimizer", "params", "lr"), ("learning_rate",), "learning_rate"),
    (("optimizer", "params", "betas"), ("adam_beta1", "adam_beta2"), "adam_beta1+adam_beta2"),
    (("optimizer", "params", "eps"), ("adam_epsilon",), "adam_epsilon"),
    (("optimizer", "params", "weight_decay"), ("weight_decay",), "weight_decay"),
    (("scheduler", "params", "warmup_max_lr"), ("learning_rate",), "learning_rate"),
    (("scheduler", "params", "warmup_num_steps"), ("warmup_steps",), "warmup_steps"),
    (("fp16", "enabled"), ("fp16", "fp16_full_eval", "fp16_backend"), "fp16|fp16_full_eval+fp16_backend(amp)"),
    (("bf16", "enabled"), ("bf16", "bf16_full_eval"), "bf16|bf16_full_eval"),
)
_UNKNOWN = object()


def _hf_value(key: tuple, values: dict):
    """What trainer_config_process compares the config key with, from the fields' values."""
    if key == ("optimizer", "params", "betas"):
        return [values["adam_beta1"], values["adam_beta2"]]
    if key == ("fp16", "enabled"):
        backend = "apex" if values["fp16_backend"] == "apex" else "amp"
        return (values["fp16"] or values["fp16_full_eval"]) and backend == "amp"
    if key == ("bf16", "enabled"):
        return values["bf16"] or values["bf16_full_eval"]
    if key == ("scheduler", "params", "warmup_num_steps"):
        steps = values["warmup_steps"]
        # a positive integer is the number of steps in every version; 0 or a ratio depend on the
        # number of training steps
        return steps if _int(steps) is not None and not isinstance(steps, float) and steps >= 1 else _UNKNOWN
    [value] = values.values()
    return value


def _comparable(value) -> bool:
    """A value HF compares as written: a bool, a number or a list of numbers (a quoted number is
    DSL603's)."""
    if isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)


def _shown(fields: tuple, values: dict, spans: dict) -> str:
    """`bf16=False` / `per_device_train_batch_size=8 (default)`: the fields a message names."""
    given = [f for f in fields if spans.get(f) is not None]
    named = given or [fields[0]]
    if fields[-1] == "fp16_backend" and "fp16_backend" not in given:
        named = [f for f in named if f != "fp16_backend"] or ["fp16"]
    return ", ".join(f"{f}={values[f]!r}" + ("" if spans.get(f) is not None else " (the default)") for f in named)


def _given(values: dict, spans: dict) -> list:
    """(span, "name=value") of the fields the script gives as keywords."""
    return [(span, f"{name}={values[name]!r}") for name, span in spans.items() if span is not None]


def _training_args_for(setup: TrainingSetup):
    """The TrainingArguments calls whose `deepspeed=` names the linked config."""
    span = setup.config.ref_span
    if span is None or setup.config.ref_path != setup.script_path:
        return []
    # (setup.resolved: the call with the defaults of another module's class it reads, `cfg.batch_size`)
    return [setup.resolved.get(id(a), a) for a in setup.facts.hf_training_args if a.config_span == span]


def _hf_mismatches(setup: TrainingSetup, doc) -> Iterator[tuple]:
    """(config key, node, config value, HF value, HF name, fields shown, related spans) for each
    key HF would report."""
    sites = _training_args_for(setup)
    if not sites:
        return
    config = doc.value

    def field_values(fields):
        """The fields' values, the same in every call that names the config; else (None, None)."""
        values, spans = {}, {}
        for name in fields:
            found = [site.value(name) for site in sites]
            value = found[0][0]
            if any(v is UNKNOWN or type(v) is not type(value) or v != value for v, _ in found):
                return None, None
            values[name], spans[name] = value, found[0][1]
        return values, spans

    batch_guard, _ = field_values(("auto_find_batch_size",))
    auto_batch = batch_guard is None or batch_guard["auto_find_batch_size"] is not False
    for key, fields, hf_key in HF_MATCHED_KEYS:
        if auto_batch and key == ("train_micro_batch_size_per_gpu",):
            continue
        node = doc.node(key)
        if node is None or node.value == "auto" or not _comparable(node.value):
            continue
        values, spans = field_values(fields)
        if values is None:
            continue
        expected = _hf_value(key, values)
        if expected is _UNKNOWN or node.value == expected:
            continue
        yield key, node, expected, hf_key, _shown(fields, values, spans), _given(values, spans)
    # train_batch_size = world_size * per_device_train_batch_size * gradient_accumulation_steps
    node = doc.node(("train_batch_size",))
    if node is None or node.value == "auto" or not _comparable(node.value) or auto_batch:
        return
    if setup.world_size is None or not _data_parallel_is_world(setup, config):
        return
    values, spans = field_values(("per_device_train_batch_size", "gradient_accumulation_steps", "parallelism_config"))
    if values is None or values["parallelism_config"] is not None:
        return
    micro, gas = _int(values["per_device_train_batch_size"]), _int(values["gradient_accumulation_steps"])
    if micro is None or gas is None:
        return
    own = [_int(config.get(k)) for k in BATCH_KEYS]
    if all(config.get(k) is None or v is not None for k, v in zip(BATCH_KEYS, own)) and own[0] is not None \
            and batch_problem(own[0], own[1], own[2], setup.world_size) is not None:
        return  # DSL610 reports the config's own arithmetic
    expected = setup.world_size * micro * gas
    if node.value != expected:
        shown = (f"{_shown(('per_device_train_batch_size',), values, spans)} x "
                 f"{_shown(('gradient_accumulation_steps',), values, spans)} x world size {setup.world_size}")
        yield (("train_batch_size",), node, expected, "train_batch_size (calculated)", shown,
               [(s, n) for s, n in _given(values, spans) if not n.startswith("parallelism_config")])


@setup_rule("DSL618", "hf-args-config-mismatch", severity=Severity.ERROR, fix=Applicability.UNSAFE)
def hf_args_config_mismatch(ctx: SetupContext) -> Iterator[Report]:
    """A concrete config value that disagrees with the script's TrainingArguments: the HF Trainer
    raises at the start of train()."""
    import json

    from ..sources.json_edits import replace_value_edit

    readers: dict = {}
    for setup in link_setups(ctx.project, ctx.settings):
        if setup.config.path:
            readers.setdefault(setup.config.path, set()).add(setup.config.consumer)
    seen = set()
    for setup, doc in _linked(ctx):
        if setup.config.consumer != "hf" or not setup.facts.hf_trainer:
            continue
        for key, node, expected, hf_key, shown, spans in _hf_mismatches(setup, doc):
            dotted = ".".join(key)
            if (doc.path, dotted, node.span.start_offset) in seen:
                continue
            seen.add((doc.path, dotted, node.span.start_offset))
            fix = None
            if doc.strict and readers.get(setup.config.path) == {"hf"}:
                fix = make_fix("edits", f'set "{short(dotted, 48)}" to "auto" (the HF Trainer fills it)',
                               Applicability.UNSAFE, edits=(replace_value_edit(doc, node, '"auto"'),))
            site_span = _training_args_for(setup)[0].span
            related = [(setup.script_path, span, f"TrainingArguments: {note}") for span, note in spans] or \
                [(setup.script_path, site_span, f"TrainingArguments leaves {shown}")]
            given = f'"{short(dotted, 36)}": {short(json.dumps(node.value), 12)}'
            tail = ', so the HF Trainer stops at train(); use "auto"'
            budget = 158 - len(given) - len(tail) - len(" but TrainingArguments has ")
            yield Report(node.pair_span or node.span,
                         f"{given} but TrainingArguments has {short(shown, max(budget, 24))}{tail}",
                         path=_file_of(doc, node.pair_span or node.span), fix=fix, related=related)


# -- the per-config rules on configs written as Python dicts -------------------------------------------

# The config rules whose reading makes sense on a dict (DSL616's repeated keys do not: Python keeps the
# last). They run here, in the project phase: only the linked setups show which dicts are configs.
DICT_CONFIG_CODES = ("DSL601", "DSL602", "DSL603", "DSL605", "DSL606", "DSL607", "DSL608", "DSL609", "DSL613")


def _needed(needs: tuple, setups: list) -> bool:
    """A contextual report on a dict config, decided with the setups that link it."""
    name, _ = needs
    if name == "config-optimizer-built":
        inits = [init for setup in setups for init in setup.facts.deepspeed_inits]
        return not (inits and all(init.optimizer_given for init in inits))
    return False  # a decider this driver does not know: say nothing


def _on_dict_configs(code: str):
    def check(ctx: SetupContext) -> Iterator[Report]:
        from dataclasses import replace

        from .context import ConfigContext
        from .registry import RULES

        rule, seen = RULES[code], set()
        for doc, setups in linked_dict_documents(ctx.project, ctx.settings, overlays=True):
            for report in rule.check(ConfigContext(doc=doc, settings=ctx.settings, project=ctx.project)):
                if report.needs is not None and not _needed(report.needs, setups):
                    continue
                span = report.target
                path = _file_of(doc, span)
                key = (path, span.start_offset, span.end_offset, report.message)
                if key not in seen and not _file_reports_it(ctx, rule, path, key):
                    seen.add(key)
                    related = [(_file_of(doc, s, p), s, note) for p, s, note in report.related]
                    yield replace(report, path=path, fix=None, needs=None, related=related)  # no JSON edit rewrites Python

    check.__name__ = f"{code.lower()}_on_dict_configs"
    return check


def _file_of(doc, span, default: Optional[str] = None) -> str:
    """The file a node's span of a linked config document is in: a config built in program order
    (config_overlays.OverlayDoc) has keys in the script, in config files and in modules."""
    file_of = getattr(doc, "file_of", None)
    return file_of(span, default) if file_of is not None else default or doc.path


def _file_reports_it(ctx: SetupContext, rule, path: str, key: tuple) -> bool:
    """Does the config file `path`, checked on its own, already give this report (a value of the file that
    a config built from it keeps)? Then the file's own check reports it."""
    doc = ctx.project.configs.get(path)
    if doc is None:
        return False
    from .context import ConfigContext

    memo = ctx.project.__dict__.setdefault("_file_config_reports", {})
    found = memo.get((rule.code, path))
    if found is None:
        found = memo[(rule.code, path)] = {
            (path, r.target.start_offset, r.target.end_offset, r.message)
            for r in rule.check(ConfigContext(doc=doc, settings=ctx.settings, project=ctx.project))}
    return key in found


def _register_dict_config_checks() -> None:
    from . import config_checks  # noqa: F401  (registers DSL606-DSL613)

    for code in DICT_CONFIG_CODES:
        program_check(code)(_on_dict_configs(code))


_register_dict_config_checks()
