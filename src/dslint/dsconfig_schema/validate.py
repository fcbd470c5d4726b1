"""validate_config: every key, type and value problem in a DeepSpeed config, with what DeepSpeed does.

Verdicts follow DeepSpeed's own parsing (`deepspeed/runtime/config.py:DeepSpeedConfig`):
strict sections are checked with the same pydantic rules DeepSpeed uses (a problem there is
`fatal`), loosely read keys are checked against the keys DeepSpeed reads (a problem there is
silently ignored by DeepSpeed, so not fatal, but still reported).
"""

from __future__ import annotations

import functools
import math
from typing import Any

from pydantic import ValidationError

from . import problems as kinds
from .coerce import as_number, lax_bool, lax_int
from .keyindex import locations, top_level_keys
from .models import SectionSchema, schemas, section_models
from .problems import ConfigPath, ConfigProblem
from .suggest import nearest
from .tables import hf_auto as auto_tables
from .tables import toplevel
from .versions import resolve_version
from ..messages import short

AUTO = "auto"

_TYPE_ERRORS = {
    "int_parsing", "int_from_float", "int_type", "bool_parsing", "bool_type", "float_parsing",
    "float_type", "string_type", "path_type", "list_type", "dict_type", "model_type",
    "model_attributes_type", "none_required", "is_instance_of", "enum_type",
}


def _fmt(path: ConfigPath) -> str:
    return ".".join(str(p) for p in path)


def _removed_message(version: str, key: str, why: str) -> str:
    """DSL602's sentence: the replacement when there is one (`...; use 'x'`), else the reason."""
    reason, _, instead = why.partition("; use ")
    if instead:
        return f"DeepSpeed {version} rejects '{key}' even if disabled; use {instead}"
    return f"DeepSpeed {version} rejects '{key}' even if disabled ({reason}); delete it"


# The start of an "auto nobody fills" message under plain deepspeed.initialize; DSL604 names the
# linked reader instead when it knows one.
NOBODY_FILLS = "nothing fills 'auto' here (only the HF Trainer and accelerate do)"


class _Checker:
    def __init__(self, version: str, filler: str | None, suggest: bool = True):
        self.version = version
        self.filler = filler
        self.suggest = suggest  # did-you-mean for unknown keys (only DSL601 shows it)
        self.fills = auto_tables.fills(filler) if filler else frozenset()
        self.schemas = schemas(version)
        self.sections = section_models(version)
        self.problems: list[ConfigProblem] = []

    # -- reporting helpers -------------------------------------------------------------

    def add(self, path, kind, message, on, suggestion=None, unambiguous=False, fatal=False):
        self.problems.append(ConfigProblem(tuple(path), kind, message, on, suggestion, unambiguous, fatal))

    def unknown(self, path: ConfigPath, siblings, fatal: bool, consequence: str) -> None:
        """An unknown key: say where it belongs, or what it was probably meant to be."""
        key = str(path[-1])
        parent = path[:-1]
        where = f"in '{short(_fmt(parent), 32)}'" if parent else "at the top level"
        if key in toplevel.FOREIGN_KEYS:
            meant, hint = toplevel.FOREIGN_KEYS[key]
            kind = kinds.MISPLACED_KEY if meant and "." in meant else kinds.UNKNOWN_KEY
            self.add(path, kind, f"'{key}' is not a DeepSpeed key: {hint}", "key", meant, meant is not None, fatal)
            return
        shown = short(key)
        homes = [p for p in locations(self.version).get(key, ()) if p != tuple(path)]
        if homes:
            places = " or ".join(f"'{short(_fmt(home), 36)}'" for home in homes[:2]) + (" ..." if len(homes) > 2 else "")
            self.add(path, kinds.MISPLACED_KEY,
                     f"'{shown}' is not a key {where}; it belongs in {places}. {consequence}",
                     "key", _fmt(homes[0]) if len(homes) <= 3 else None, len(homes) == 1, fatal)
            return
        guess, clear = nearest(key, siblings) if self.suggest else (None, False)
        if guess is None:
            # A close match to a key that is valid somewhere else (e.g. a typo'd offload block).
            elsewhere = _single_homes(self.version)
            far, _ = nearest(key, elsewhere.keys()) if self.suggest else (None, False)
            if far is not None:
                self.add(path, kinds.UNKNOWN_KEY,
                         f"'{shown}' is not a key {where}; did you mean '{_fmt(elsewhere[far])}'? {consequence}",
                         "key", _fmt(elsewhere[far]), False, fatal)
                return
            self.add(path, kinds.UNKNOWN_KEY, f"'{shown}' is not a DeepSpeed key {where}. {consequence}",
                     "key", None, False, fatal)
            return
        self.add(path, kinds.UNKNOWN_KEY, f"'{shown}' is not a key {where}; did you mean '{guess}'? {consequence}",
                 "key", guess, clear, fatal)

    def auto(self, path: ConfigPath, consequence: str, fatal: bool = False) -> None:
        """An "auto" that nobody will fill in."""
        key = tuple(path)
        if key in self.fills:
            return
        if key in auto_tables.DEEPSPEED_OWN_AUTO:
            return
        if self.filler is None:
            who = NOBODY_FILLS
        elif key in auto_tables.ACCELERATE_ONLY_FILLS:
            who = "only accelerate fills this 'auto', not the HF Trainer"
        else:
            who = "neither the HF Trainer nor accelerate fills this 'auto'"
        self.add(path, kinds.AUTO_NOT_FILLED, f"{who}, so {consequence}; write a value", "value", fatal=fatal)

    # -- the walk ------------------------------------------------------------------------

    def check(self, data: Any) -> list[ConfigProblem]:
        if not isinstance(data, dict):
            self.add((), kinds.BAD_TYPE, "A DeepSpeed config must be a JSON object; DeepSpeedConfig raises.",
                     "value", fatal=True)
            return self.problems
        removed = toplevel.REMOVED_TOP_LEVEL.get(self.version, {})
        scalars = toplevel.scalars(self.version)
        loose = toplevel.loose_sections(self.version)
        known = top_level_keys(self.version)
        for key, value in data.items():
            path = (key,)
            if key in removed:
                self.add(path, kinds.REMOVED_KEY, _removed_message(self.version, key, removed[key]), "key", fatal=True)
            elif key in toplevel.DEPRECATED_TOP_LEVEL:
                self.check_deprecated_top_level(data, key, value)
            elif key == "zero_optimization":
                self.check_zero(value)
            elif key in self.sections:
                self.check_strict(path, value, self.sections[key])
            elif key in scalars:
                self.check_scalar(key, value, scalars[key][0])
            elif key in loose:
                self.check_loose(key, value, loose[key])
            elif not key.startswith(toplevel.COMMENT_KEY_PREFIXES):
                self.unknown(path, known, False, "DeepSpeed silently ignores it.")
        self.check_cross_section(data)
        return self.problems

    def check_deprecated_top_level(self, data: dict, key: str, value: Any) -> None:
        new = toplevel.DEPRECATED_TOP_LEVEL[key]
        if new in data:
            self.add((key,), kinds.DEPRECATED_KEY,
                     f"'{key}' is the legacy spelling of '{new}', silently ignored because '{new}' is also given; "
                     f"remove '{key}'.", "key", new, True)
            return
        self.add((key,), kinds.DEPRECATED_KEY,
                 f"'{key}' is the legacy spelling of '{new}', which the HF Trainer and accelerate fill (an 'auto' "
                 f"here stays unfilled); rename it.", "key", new, True)
        self.check_strict((key,), value, self.sections[new])

    def check_zero(self, value: Any) -> None:
        path = ("zero_optimization",)
        if isinstance(value, bool):
            self.add(path, kinds.DEPRECATED_KEY,
                     "A boolean 'zero_optimization' is the legacy form (true means stage 1); "
                     "write {\"stage\": N} instead.", "value")
            return
        if isinstance(value, dict):
            removed = toplevel.REMOVED_ZERO_KEYS.get(self.version, {})
            present = [k for k in value if k in removed]
            for key in present:
                self.add(path + (key,), kinds.REMOVED_KEY,
                         _removed_message(self.version, f"zero_optimization.{key}", removed[key]), "key", fatal=True)
            value = {k: v for k, v in value.items() if k not in removed}
        self.check_strict(path, value, self.sections["zero_optimization"])
        if isinstance(value, dict):
            self.check_zero_rules(value)

    # -- strict (pydantic) sections ------------------------------------------------------

    def check_strict(self, path: ConfigPath, value: Any, model_name: str) -> None:
        if value == AUTO:
            self.auto(path, "DeepSpeed raises TypeError (it cannot read 'auto' as a section)", fatal=True)
            return
        if not isinstance(value, dict):
            self.add(path, kinds.BAD_TYPE,
                     f"'{_fmt(path)}' must be an object; DeepSpeedConfig raises TypeError.", "value", fatal=True)
            return
        schema = self.schemas[model_name]
        cleaned = self.drop_autos(path, value, schema)
        try:
            schema.model.model_validate(cleaned)
        except ValidationError as error:
            for item in error.errors():
                self.pydantic_problem(path, item, schema, cleaned)
        self.check_deprecated_fields(path, cleaned, schema)

    def drop_autos(self, path: ConfigPath, value: dict, schema: SectionSchema) -> dict:
        """Mirror DeepSpeedConfigModel.__init__: "auto" values are dropped, the field takes its default."""
        cleaned = {}
        for key, item in value.items():
            field = schema.field_for(key)
            if item == AUTO and not isinstance(item, bool):
                if field is None:
                    self.unknown(path + (key,), schema.key_names(), False, "DeepSpeed silently drops it.")
                else:
                    default = schema.fields[field].get("default")
                    self.auto(path + (key,), f"DeepSpeed silently uses the default ({short(repr(default), 20)})")
                continue
            if field is not None and field in schema.children and isinstance(item, dict):
                item = self.drop_autos(path + (key,), item, self.schemas[schema.children[field]])
            cleaned[key] = item
        return cleaned

    def pydantic_problem(self, path: ConfigPath, item: dict, schema: SectionSchema, data: dict) -> None:
        loc = tuple(item["loc"])
        # Tagged/union errors carry the member type after the field name; keep the keys only.
        keys = tuple(part for part in loc if isinstance(part, int) or part in _keys_along(loc, schema, self.schemas))
        full = path + (keys or loc)
        kind = item["type"]
        if kind == "extra_forbidden":
            self.extra_key(path, keys or loc, schema, data)
            return
        shown = short(_fmt(full), 48)
        detail = short(item["msg"], 64)
        if kind in _TYPE_ERRORS:
            self.add(full, kinds.BAD_TYPE, f"'{shown}': {detail}; DeepSpeed raises a ValidationError.",
                     "value", fatal=True)
        else:
            self.add(full or path, kinds.BAD_VALUE, f"'{shown}': {detail}; DeepSpeed raises a ValidationError.",
                     "value", fatal=True)

    def extra_key(self, section: ConfigPath, keys: tuple, root: SectionSchema, data: dict) -> None:
        """An extra input pydantic rejected: find the nested schema that owns it, then explain."""
        owner, node = root, data
        for key in keys[:-1]:
            field = owner.field_for(str(key))
            if field is None or field not in owner.children:
                break
            owner = self.schemas[owner.children[field]]
            node = node.get(key) if isinstance(node, dict) else None
        node = node if isinstance(node, dict) else {}
        full = section + keys
        key = str(keys[-1])
        field = owner.field_for(key)
        if field is not None and "alias" in owner.fields[field] and owner.fields[field]["alias"] in node:
            alias = owner.fields[field]["alias"]
            self.add(full, kinds.UNKNOWN_KEY,
                     f"'{key}' and its alias '{alias}' are both given, so DeepSpeed raises a ValidationError; keep "
                     f"'{alias}'.", "key", alias, True, True)
            return
        self.unknown(full, owner.key_names(), True, "DeepSpeed raises a ValidationError.")

    def check_deprecated_fields(self, path: ConfigPath, data: dict, schema: SectionSchema) -> None:
        for key in data:
            field = schema.field_for(key)
            if field is None or "deprecated_for" not in schema.fields[field]:
                continue
            new = schema.fields[field]["deprecated_for"]
            new_field = schema.field_for(new)
            if new_field is not None:  # say it the way configs spell it (the stage3_ alias)
                new = schema.fields[new_field].get("alias", new)
            together = new_field is not None and any(schema.field_for(k) == new_field for k in data)
            if together:
                self.add(path + (key,), kinds.DEPRECATED_KEY,
                         f"'{key}' is deprecated for '{new}', and giving both makes DeepSpeed raise "
                         "AssertionError (config_utils.py:_process_deprecated_field).", "key", new,
                         True, True)
            else:
                self.add(path + (key,), kinds.DEPRECATED_KEY,
                         f"'{key}' is deprecated; DeepSpeed still reads it (with a warning) as '{new}'.",
                         "key", new if new_field is not None else None, new_field is not None)
            nested = schema.children.get(field)
            if nested and isinstance(data.get(key), dict):
                self.check_deprecated_fields(path + (key,), data[key], self.schemas[nested])

    # -- model validators DeepSpeed adds on top of the field types ------------------------

    def check_zero_rules(self, zero: dict) -> None:
        stage = lax_int(zero.get("stage", 0))
        offload = zero.get("offload_optimizer")
        if isinstance(offload, dict):
            ratio = offload.get("ratio", 1.0)
            if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) and ratio < 1.0 and stage != 3 \
                    and stage is not None:
                self.add(("zero_optimization", "offload_optimizer", "ratio"), kinds.BAD_VALUE,
                         "Partial optimizer offload (ratio < 1) needs ZeRO stage 3; DeepSpeed raises a "
                         "ValidationError (zero/config.py:offload_ratio_check).", "value", fatal=True)
        if "compute_grad_norm" in self.schemas["DeepSpeedZeroConfig"].fields:
            value = zero.get("compute_grad_norm", True)
            if lax_bool(value) is False and stage not in (1, 2) and stage is not None:
                self.add(("zero_optimization", "compute_grad_norm"), kinds.BAD_VALUE,
                         "compute_grad_norm=false is supported only with ZeRO stage 1 or 2; DeepSpeed raises "
                         "a ValidationError.", "value", fatal=True)
        zenflow = zero.get("zenflow")
        if isinstance(zenflow, dict):
            strategy = zenflow.get("select_strategy", AUTO)
            if isinstance(strategy, str) and strategy not in ("auto", "step", "epoch"):
                self.add(("zero_optimization", "zenflow", "select_strategy"), kinds.BAD_VALUE,
                         'select_strategy must be "auto", "step" or "epoch"; DeepSpeed raises a ValidationError.',
                         "value", fatal=True)
            for key in ("select_interval", "update_interval"):
                interval = zenflow.get(key)
                if isinstance(interval, str) and interval != AUTO:
                    self.add(("zero_optimization", "zenflow", key), kinds.BAD_VALUE,
                             f'A string {key} must be "auto"; DeepSpeed raises a ValidationError.',
                             "value", fatal=True)

    def check_fp16_rules(self, fp16: dict) -> None:
        path = ("fp16",)
        if "loss_scale" in fp16 and fp16["loss_scale"] != AUTO:
            scale = fp16["loss_scale"]
            bad = isinstance(scale, bool)
            try:
                number = float(scale)
                bad = bad or not math.isfinite(number) or number < 0
            except (TypeError, ValueError):
                bad = True
            if bad:
                self.replace_or_add(path + ("loss_scale",), kinds.BAD_VALUE,
                                    "fp16.loss_scale must be a finite number >= 0 (0 means dynamic); "
                                    "DeepSpeed raises a ValidationError.")
        for key in ("loss_scale_window", "min_loss_scale"):
            if isinstance(fp16.get(key), bool):
                self.replace_or_add(path + (key,), kinds.BAD_TYPE,
                                    f"fp16.{key} must be an integer, not a boolean; DeepSpeed raises a "
                                    "ValidationError.")
        enabled = fp16.get("enabled", False)
        enabled = enabled if enabled != AUTO else False
        scale = fp16.get("loss_scale", 0)
        if _on(enabled) and as_number(scale) == 0:
            for key, default in (("loss_scale_window", 1000), ("min_loss_scale", 1)):
                number = as_number(fp16.get(key, default))
                if number is not None and number <= 0 and not isinstance(fp16.get(key), bool):
                    self.replace_or_add(path + (key,), kinds.BAD_VALUE,
                                        f"fp16.{key} must be > 0 with dynamic loss scaling (loss_scale 0); "
                                        "DeepSpeed raises a ValidationError.")

    def replace_or_add(self, path: ConfigPath, kind: str, message: str) -> None:
        if any(p.path == path and p.fatal for p in self.problems):
            return
        self.add(path, kind, message, "value", fatal=True)

    def check_cross_section(self, data: dict) -> None:
        fp16 = data.get("fp16")
        if isinstance(fp16, dict):
            self.check_fp16_rules(fp16)
        bf16 = data.get("bf16", data.get("bfloat16"))
        if isinstance(fp16, dict) and isinstance(bf16, dict):
            if _on(fp16.get("enabled")) and _on(bf16.get("enabled")):
                where = "bf16" if "bf16" in data else "bfloat16"
                self.add((where, "enabled"), kinds.BAD_VALUE,
                         "fp16 and bf16 are both enabled; DeepSpeed asserts 'bfloat16 and fp16 modes cannot "
                         "be simultaneously enabled'.", "value", fatal=True)

    # -- top-level scalars ---------------------------------------------------------------

    def check_scalar(self, key: str, value: Any, kind: str) -> None:
        path = (key,)
        if value is None:
            return
        batch = key in toplevel.BATCH_KEYS
        if value == AUTO and isinstance(value, str):
            if batch:
                self.auto(path, "DeepSpeedConfig raises TypeError", fatal=True)
            elif key == "gradient_clipping":
                self.auto(path, "engine.step raises TypeError (deepspeed#1270)")
            elif kind in ("comm-type", "reduce-op"):
                self.auto(path, "DeepSpeedConfig raises ValueError", fatal=True)
            elif kind == "bool":
                self.auto(path, "DeepSpeed reads the string 'auto' as true")
            elif kind in ("int", "number"):
                self.auto(path, "DeepSpeed fails later when it computes with it",
                          fatal=key in ("vocabulary_size", "sequence_parallel_size"))
            return
        if kind in ("int", "number"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                if batch or key in ("vocabulary_size", "sequence_parallel_size"):
                    self.add(path, kinds.BAD_TYPE,
                             f"'{key}' must be a number, got {short(repr(value), 24)}; DeepSpeedConfig raises "
                             "TypeError.",
                             "value", fatal=not isinstance(value, bool))
                else:
                    self.add(path, kinds.BAD_TYPE,
                             f"'{key}' must be a number, got {short(repr(value), 24)}; DeepSpeed fails later when "
                             "it computes with it.", "value")
        elif kind == "bool":
            if isinstance(value, str):
                self.add(path, kinds.BAD_TYPE,
                         f"'{key}' must be true or false, got the string {short(repr(value), 24)}; DeepSpeed "
                         "treats any non-empty string as true.", "value")
        elif kind == "comm-type":
            if not isinstance(value, str) or value.lower() not in toplevel.COMM_TYPES:
                self.add(path, kinds.BAD_VALUE,
                         f"'{key}' must be one of fp16, bf16, fp32, got {short(repr(value), 24)}; DeepSpeedConfig "
                         "raises.",
                         "value", fatal=True)
        elif kind == "reduce-op":
            if not (isinstance(value, str) and value.lower() in toplevel.REDUCE_OPS):
                self.add(path, kinds.BAD_VALUE,
                         f"'{key}' must be 'mean' or 'sum', got {short(repr(value), 24)}; DeepSpeedConfig raises "
                         "ValueError.",
                         "value", fatal=True)

    # -- loosely read sections -----------------------------------------------------------

    def check_loose(self, key: str, value: Any, known: tuple | None) -> None:
        path = (key,)
        if value is None:
            if key in ("optimizer", "scheduler", "checkpoint", "data_types"):
                self.add(path, kinds.BAD_TYPE, f"'{key}' must be an object, not null; DeepSpeedConfig raises.",
                         "value", fatal=True)
            return
        if not isinstance(value, dict):
            if value == AUTO:
                self.auto(path, "DeepSpeed raises (it cannot read 'auto' as a section)", fatal=True)
            else:
                self.add(path, kinds.BAD_TYPE, f"'{key}' must be an object; DeepSpeedConfig raises.",
                         "value", fatal=True)
            return
        if known is not None:
            for sub in value:
                if (key, sub) in toplevel.RENAMED_KEYS:
                    new, since = toplevel.RENAMED_KEYS[(key, sub)]
                    self.add(path + (sub,), kinds.REMOVED_KEY,
                             f"'{key}.{sub}' was renamed '{new}' in DeepSpeed {since}; the old name is silently "
                             "ignored.", "key", new, True)
                elif sub not in known:
                    self.unknown(path + (sub,), known, False,
                                 "DeepSpeed silently ignores it.")
        if key == "timers" and "throughput" in value:
            self.check_strict(path + ("throughput",), value["throughput"], self.sections["timers.throughput"])
        elif key in ("optimizer", "scheduler"):
            self.check_optimizer_or_scheduler(key, value)
        elif key == "torch_autocast":
            dtype = value.get("dtype")
            if "dtype" in value and not (isinstance(dtype, str) and dtype in toplevel.DTYPE_NAMES):
                self.add(path + ("dtype",), kinds.BAD_VALUE,
                         f"torch_autocast.dtype {short(repr(dtype), 24)} is not a dtype DeepSpeed knows "
                         "(fp16, bf16, fp32, int8 or a torch.* name); DeepSpeedConfig raises ValueError.",
                         "value", fatal=True)
        elif key == "checkpoint":
            self.check_checkpoint(value)
        elif key == "data_types" and known is not None and "keep_in_fp32_modules" in known:
            modules = value.get("keep_in_fp32_modules", AUTO)
            if modules != AUTO and not (isinstance(modules, list) and all(isinstance(m, str) for m in modules)):
                self.add(path + ("keep_in_fp32_modules",), kinds.BAD_VALUE,
                         "data_types.keep_in_fp32_modules must be \"auto\" or a list of name patterns; "
                         "DeepSpeedConfig raises DeepSpeedConfigError.", "value", fatal=True)

    def check_optimizer_or_scheduler(self, key: str, value: dict) -> None:
        path = (key,)
        if value.get("type") == AUTO:
            self.auto(path + ("type",), f"DeepSpeed fails when it builds the {key}")
        params = value.get("params")
        if params is None:
            return
        if not isinstance(params, dict):
            self.add(path + ("params",), kinds.BAD_TYPE, f"'{key}.params' must be an object.", "value")
            return
        for name, item in params.items():
            if isinstance(item, str) and item == AUTO:
                self.auto(path + ("params", name),
                          f"DeepSpeed fails when it builds the {key}")
        if key == "optimizer" and "max_grad_norm" in params:
            self.add(path + ("params", "max_grad_norm"), kinds.MISPLACED_KEY,
                     "'max_grad_norm' is not an optimizer parameter in DeepSpeed, so the engine raises ValueError "
                     "when it builds the optimizer; use the top-level 'gradient_clipping'.", "key",
                     "gradient_clipping", True)

    def check_checkpoint(self, value: dict) -> None:
        path = ("checkpoint",)
        if "tag_validation" in value:
            mode = value["tag_validation"]
            if not (isinstance(mode, str) and mode.upper() in toplevel.TAG_VALIDATION_MODES):
                self.add(path + ("tag_validation",), kinds.BAD_VALUE,
                         f"checkpoint.tag_validation must be WARN, IGNORE or FAIL, got {short(repr(mode), 24)}; "
                         "DeepSpeedConfig raises DeepSpeedConfigError.", "value", fatal=True)
        parallel = value.get("parallel_write")
        if isinstance(parallel, dict) and "pipeline_stage" in parallel:
            if parallel["pipeline_stage"] not in (True, False):
                self.add(path + ("parallel_write", "pipeline_stage"), kinds.BAD_VALUE,
                         "checkpoint.parallel_write.pipeline_stage must be true or false; DeepSpeedConfig "
                         "raises DeepSpeedConfigError.", "value", fatal=True)


def _on(value: Any) -> bool:
    """Whether pydantic's lax bool reads value as true."""
    return lax_bool(value) is True


def _keys_along(loc: tuple, root: SectionSchema, all_schemas: dict) -> set:
    """The parts of a pydantic error location that are config keys (not union member tags)."""
    names: set = set()
    schema: SectionSchema | None = root
    for part in loc:
        if schema is None or not isinstance(part, str):
            break
        names.add(part)
        field = schema.field_for(part)
        schema = all_schemas[schema.children[field]] if field in schema.children else None
    return names


@functools.lru_cache(maxsize=None)
def _single_homes(version: str) -> dict:
    """Key name -> its path, for the keys valid at exactly one place (the did-you-mean elsewhere)."""
    return {p[-1]: p for ps in locations(version).values() for p in ps if len(ps) == 1}


def validate_config(data: dict, *, version: str | None = None, hf_auto: bool | str = False,
                    suggest: bool = True) -> list[ConfigProblem]:
    """Every key, type and value problem in a DeepSpeed config dict, for one DeepSpeed version.

    version: a DeepSpeed version ("0.19.8"); None checks against the newest supported one
        (see versions.resolve_version for versions in between).
    hf_auto: whether the config goes through a tool that fills "auto" values: False for plain
        deepspeed.initialize (every "auto" is reported), True or "trainer" for the HF Trainer,
        "accelerate" for accelerate's DeepSpeed plugin (which also fills the ZeRO stage, the
        offload devices, the NVMe paths and stage3_gather_16bit_weights_on_model_save).
    suggest: look for the key an unknown key was meant to be (the did-you-mean); without it an
        unknown key's problem has no suggestion.

    Returns problems in the order of the keys in the config, each with a `fatal` flag that is
    True exactly when DeepSpeed's own config parsing raises on it. Batch arithmetic against a
    world size is not checked here (it needs the world size).
    """
    filler = None
    if hf_auto:
        filler = "accelerate" if hf_auto == "accelerate" else "trainer"
    return _Checker(resolve_version(version), filler, suggest).check(data)
