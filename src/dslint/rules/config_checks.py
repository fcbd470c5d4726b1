"""DSL606–DSL609, DSL613, DSL616: DeepSpeed config settings that are wrong on their own.

Each reads one config and points at the key that is wrong. Fixes edit only the bytes of one
value (or insert one pair), and are offered only for strict JSON (hjson-style configs with
comments are reported, never rewritten).
"""
from __future__ import annotations

import json
from typing import Iterator, Optional

from ..facts.link import built_config_where, link_setups
from ..fixes import make_fix
from ..model import Applicability, Severity
from ..sources.dsconfig import JsonDoc, JsonNode
from .config_schema import BUCKET_KEYS, target_version
from .context import ConfigContext, SetupContext
from .registry import Report, config_rule, program_check

PIN_MEMORY_DEFAULT_TRUE_SINCE = (0, 19, 5)  # DeepSpeed PR #8207


def _enabled(section) -> Optional[bool]:
    """A literal `enabled` flag; None for "auto" or not given."""
    if not isinstance(section, dict):
        return None
    value = section.get("enabled")
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def _stage(value: dict) -> Optional[int]:
    zero = value.get("zero_optimization")
    if not isinstance(zero, dict):
        return 0 if zero is None else None
    stage = zero.get("stage", 0)
    if isinstance(stage, bool):
        return None
    if isinstance(stage, int):
        return stage
    if isinstance(stage, str) and stage.isdigit():
        return int(stage)
    return None


def replace_value_edit(doc: JsonDoc, node: JsonNode, text: str) -> tuple:
    span = node.span
    return (span.start_offset, span.end_offset, text, doc.text[span.start_offset:span.end_offset])


def insert_pair_edit(doc: JsonDoc, obj: JsonNode, key: str, value_text: str) -> Optional[tuple]:
    """An edit adding `"key": value` as the last pair of an object, in the object's own layout."""
    if obj.kind != "object":
        return None
    text = doc.text
    pair = f"{json.dumps(key)}: {value_text}"
    if not obj.children:
        start = obj.span.start_offset + 1
        return (start, start, pair, "")
    last = list(obj.children.values())[-1]
    end = (last.pair_span or last.span).end_offset
    last_start = (last.pair_span or last.span).start_offset
    line_start = text.rfind("\n", 0, last_start) + 1
    before = text[line_start:last_start]
    if before.strip() == "" and obj.span.start.row != (last.pair_span or last.span).start.row:
        return (end, end, f",\n{before}{pair}", "")
    return (end, end, f", {pair}", "")


@config_rule("DSL606", "fp16-and-bf16", severity=Severity.ERROR)
def fp16_and_bf16(ctx: ConfigContext) -> Iterator[Report]:
    """fp16 and bf16 both enabled: DeepSpeedConfig asserts."""
    value = ctx.doc.value
    bf16_key = "bf16" if "bf16" in value else "bfloat16"
    if _enabled(value.get("fp16")) and _enabled(value.get(bf16_key)):
        node = ctx.doc.node(("fp16", "enabled")) or ctx.doc.node(("fp16",))
        other = ctx.doc.node((bf16_key, "enabled"))
        yield Report(node.pair_span or node.span,
                     f"fp16 and {bf16_key} are both enabled: DeepSpeed raises AssertionError (bfloat16 and fp16 modes "
                     f"cannot be simultaneously enabled). Keep one — bf16 on Ampere or newer GPUs.",
                     related=[(ctx.path, other.pair_span or other.span, f"{bf16_key}.enabled")] if other else [])


@config_rule("DSL607", "fractional-bucket-size", severity=Severity.ERROR, fix=Applicability.SAFE)
def fractional_bucket_size(ctx: ConfigContext) -> Iterator[Report]:
    """A bucket/threshold size with a fractional part: DeepSpeed's pydantic int fields reject it."""
    for path, node in ctx.doc.walk():
        if not path or path[0] != "zero_optimization" or str(path[-1]) not in BUCKET_KEYS:
            continue
        if isinstance(node.value, float) and not node.value.is_integer() and node.value == node.value:
            rounded = int(round(node.value))
            fix = None
            if ctx.doc.strict:
                fix = make_fix("edits", f"write the integer {rounded}", Applicability.SAFE,
                               edits=(replace_value_edit(ctx.doc, node, str(rounded)),))
            yield Report(node.span,
                         f"'{path[-1]}' is {node.value!r}, a number with a fractional part: DeepSpeed (>= 0.15, "
                         f"pydantic int field) raises ValidationError 'Input should be a valid integer, got a number "
                         f"with a fractional part'. Write an integer.", fix=fix)


def ignored_offload(value: dict) -> list[tuple[str, int, str]]:
    """(what, stage, device) for each offload setting DeepSpeed ignores below ZeRO-3 in `value`:
    ("offload_param", ...) at stage 0-2, ("offload_optimizer", ...) with device "nvme" at stage 1-2."""
    stage = _stage(value)
    zero = value.get("zero_optimization")
    if stage is None or stage == 3 or not isinstance(zero, dict):
        return []
    found = []
    param = zero.get("offload_param")
    if isinstance(param, dict) and param.get("device") in ("cpu", "nvme"):
        found.append(("offload_param", stage, param["device"]))
    optimizer = zero.get("offload_optimizer")
    if isinstance(optimizer, dict) and optimizer.get("device") == "nvme" and stage in (1, 2):
        found.append(("offload_optimizer", stage, "nvme"))
    return found


@config_rule("DSL608", "offload-ignored-below-stage-3")
def offload_ignored_below_stage_3(ctx: ConfigContext) -> Iterator[Report]:
    """offload_param below ZeRO-3 is ignored; NVMe optimizer offload below ZeRO-3 becomes CPU offload."""
    for what, stage, device in ignored_offload(ctx.doc.value):
        if what == "offload_param":
            node = ctx.doc.node(("zero_optimization", "offload_param"))
            yield Report(node.key_span or node.span,
                         f"offload_param (device {device!r}) with ZeRO stage {stage}: parameters are partitioned "
                         f"only in stage 3, so DeepSpeed silently ignores it and the parameters stay on the GPU. Use "
                         f"stage 3, or remove offload_param.")
        else:
            node = ctx.doc.node(("zero_optimization", "offload_optimizer", "device"))
            yield Report(node.span,
                         f"offload_optimizer.device 'nvme' with ZeRO stage {stage}: stages 1–2 treat any offload device "
                         f"as CPU offload (stage_1_and_2.py), so the optimizer states go to host RAM, not to NVMe. Use "
                         f"stage 3 for NVMe offload, or write \"cpu\".")


@program_check("DSL608")
def offload_ignored_below_stage_3_in_built_config(ctx: SetupContext) -> Iterator[Report]:
    """The same for a config no file holds: the one Lightning builds from DeepSpeedStrategy(...) (in the
    script or in a LightningCLI YAML), or the one accelerate builds from its config file's deepspeed_config."""
    seen = set()
    for setup in link_setups(ctx.project, ctx.settings):
        for what, stage, device in ignored_offload(setup.config_value or {}):
            setting = "offload_param" if what == "offload_param" else "offload_optimizer.device"
            where = built_config_where(setup, setting)
            if where is None:
                continue
            path, span, name = where
            if (path, span.start_offset, what) in seen:
                continue
            seen.add((path, span.start_offset, what))
            stage_at = built_config_where(setup, "stage")
            related = [(stage_at[0], stage_at[1], f"{stage_at[2]} {stage}")] if stage_at and stage_at[1] != span else []
            builder = "accelerate" if setup.config.consumer == "accelerate" else "Lightning"
            written = f"{name} ({device!r})" if name.endswith("device") else name
            if what == "offload_param":
                message = (f"{written} with ZeRO stage {stage}: {builder} writes it into the DeepSpeed config as "
                           f"offload_param, but parameters are partitioned only in stage 3, so DeepSpeed silently ignores "
                           f"it and the parameters stay on the GPU. Use stage 3, or drop {name}.")
            else:
                message = (f"{written} with ZeRO stage {stage}: stages 1–2 treat any offload device as CPU offload "
                           f"(stage_1_and_2.py), so the optimizer states go to host RAM, not to NVMe. Use stage 3 for "
                           f"NVMe offload, or offload to \"cpu\".")
            yield Report(span, message, path=path, related=related)


@config_rule("DSL609", "nvme-offload-without-path", severity=Severity.ERROR)
def nvme_offload_without_path(ctx: ConfigContext) -> Iterator[Report]:
    """NVMe offload with no nvme_path: ZeRO-3 asserts when it builds the swapper."""
    value = ctx.doc.value
    if _stage(value) != 3:
        return
    zero = value.get("zero_optimization")
    for key in ("offload_param", "offload_optimizer"):
        block = zero.get(key) if isinstance(zero, dict) else None
        if isinstance(block, dict) and block.get("device") == "nvme" and not block.get("nvme_path"):
            node = ctx.doc.node(("zero_optimization", key, "device"))
            yield Report(node.span,
                         f"{key}.device is 'nvme' but {key}.nvme_path is not set: ZeRO-3 fails when it creates the "
                         f"NVMe swapper (\"nvme_path\" ... cannot be None). Set nvme_path to a directory on a local NVMe "
                         f"drive.")


def _version_tuple(version: Optional[str]) -> Optional[tuple]:
    if not version:
        return None
    parts = []
    for piece in version.split("+")[0].split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) if parts else None


@config_rule("DSL613", "offload-pin-memory-off", fix=Applicability.UNSAFE)
def offload_pin_memory_off(ctx: ConfigContext) -> Iterator[Report]:
    """CPU/NVMe offload with pin_memory false, or omitted on a DeepSpeed whose default was false."""
    value = ctx.doc.value
    zero = value.get("zero_optimization")
    if not isinstance(zero, dict) or _stage(value) not in (1, 2, 3):
        return
    version = _version_tuple(target_version(ctx.settings))
    old_default = version is not None and version < PIN_MEMORY_DEFAULT_TRUE_SINCE
    for key in ("offload_optimizer", "offload_param"):
        block = zero.get(key)
        if not isinstance(block, dict) or block.get("device") not in ("cpu", "nvme"):
            continue
        if key == "offload_param" and _stage(value) != 3:
            continue  # ignored below stage 3 (DSL608)
        node = ctx.doc.node(("zero_optimization", key))
        pin = block.get("pin_memory")
        why = ("host-device copies of the offloaded state go through pageable memory (the slow staged copy); "
               "measured 2.0x slower steps on 2 x H200 with ZeRO-2 offload")
        if pin is False:
            fix = make_fix("edits", "set pin_memory to true", Applicability.UNSAFE,
                           edits=(replace_value_edit(ctx.doc, node.children["pin_memory"], "true"),)) if ctx.doc.strict else None
            yield Report(node.children["pin_memory"].span,
                         f"{key}.pin_memory is false: {why}. Set it to true unless host RAM or `ulimit -l` is tight "
                         f"(pinned pages cannot be swapped).", fix=fix)
        elif pin is None and old_default:
            edit = insert_pair_edit(ctx.doc, node, "pin_memory", "true") if ctx.doc.strict else None
            fix = make_fix("edits", "add \"pin_memory\": true", Applicability.UNSAFE, edits=(edit,)) if edit else None
            yield Report(node.key_span or node.span,
                         f"{key} has no pin_memory, and DeepSpeed {target_version(ctx.settings)} defaults it to false "
                         f"(true only since v0.19.5): {why}. Write \"pin_memory\": true so the config behaves the same "
                         f"on every version.", fix=fix)


@config_rule("DSL616", "duplicate-config-key", severity=Severity.ERROR)
def duplicate_config_key(ctx: ConfigContext) -> Iterator[Report]:
    """The same key twice in one object: DeepSpeed (reading a path) raises, json.load keeps the last."""
    for path, span in ctx.doc.duplicate_keys:
        yield Report(span,
                     f"'{'.'.join(str(p) for p in path)}' appears twice: DeepSpeed reads config paths with "
                     f"dict_raise_error_on_duplicate_keys and raises ValueError (Duplicate keys in DeepSpeed config), "
                     f"while the HF Trainer and Accelerate (json.load) silently keep the last one. Keep one.")
