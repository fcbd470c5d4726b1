"""DSL606–DSL609, DSL613, DSL616: DeepSpeed config settings that are wrong on their own.

Each reads one config and points at the key that is wrong. Fixes edit only the bytes of one
value (or insert one pair), and are offered only for strict JSON (hjson-style configs with
comments are reported, never rewritten).
"""
from __future__ import annotations

from typing import Iterator, Optional

from ..facts.link import built_config_where, link_setups
from ..fixes import make_fix
from ..model import Applicability, Severity
from ..sources.dsconfig import JsonNode
from ..sources.json_edits import insert_pair_edit, replace_value_edit
from .config_schema import BUCKET_KEYS, effective, target_version
from .context import ConfigContext, SetupContext
from .registry import Report, config_rule, program_check, short

PIN_MEMORY_DEFAULT_TRUE_SINCE = (0, 19, 5)  # DeepSpeed PR #8207



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


@config_rule("DSL606", "fp16-and-bf16", severity=Severity.ERROR)
def fp16_and_bf16(ctx: ConfigContext) -> Iterator[Report]:
    """fp16 and bf16 both enabled: DeepSpeedConfig asserts."""
    value = ctx.doc.value
    bf16_key = "bf16" if "bf16" in value else "bfloat16"
    read = effective(value, ctx.settings)
    if read is not None and read.fp16_enabled is True and read.bf16_enabled is True:
        node = ctx.doc.node(("fp16", "enabled")) or _nearest_node(ctx.doc, ("fp16",))
        other = ctx.doc.node((bf16_key, "enabled"))
        yield Report(node.pair_span or node.span,
                     f"fp16 and {bf16_key} are both enabled, so DeepSpeed raises AssertionError; keep one (bf16 on "
                     "Ampere or newer GPUs)",
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
                         f"'{path[-1]}' is {short(repr(node.value), 20)}, but DeepSpeed needs an integer here "
                         f"(ValidationError); write {rounded}", fix=fix)


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


def _nearest_node(doc, path: tuple):
    """The node at `path`, else its deepest ancestor that the positions know (else the whole file)."""
    while path:
        node = doc.node(path)
        if node is not None:
            return node
        path = path[:-1]
    return doc.root or JsonNode(value=None, span=doc.lines.span(0, 0))


@config_rule("DSL608", "offload-ignored-below-stage-3")
def offload_ignored_below_stage_3(ctx: ConfigContext) -> Iterator[Report]:
    """offload_param below ZeRO-3 is ignored; NVMe optimizer offload below ZeRO-3 becomes CPU offload."""
    for what, stage, device in ignored_offload(ctx.doc.value):
        if what == "offload_param":
            # (an hjson-style file that tree-sitter reads differently from hjson has no node there)
            node = _nearest_node(ctx.doc, ("zero_optimization", "offload_param"))
            yield Report(node.key_span or node.span,
                         f"offload_param (device {device!r}) with ZeRO stage {stage} is silently ignored (only stage 3 "
                         "partitions parameters); use stage 3 or remove offload_param")
        else:
            node = _nearest_node(ctx.doc, ("zero_optimization", "offload_optimizer", "device"))
            yield Report(node.span,
                         f"offload_optimizer.device 'nvme' with ZeRO stage {stage} offloads to host RAM, not NVMe; use "
                         "stage 3 for NVMe offload, or write \"cpu\"")


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
            written = f"{short(name, 36)} ({device!r})" if name.endswith("device") else short(name, 44)
            if what == "offload_param":
                message = (f"{written} with ZeRO stage {stage} is silently ignored ({builder} writes offload_param, "
                           "which only stage 3 reads); use stage 3 or drop it")
            else:
                message = (f"{written} with ZeRO stage {stage} offloads to host RAM, not NVMe; use stage 3 for NVMe "
                           "offload, or offload to \"cpu\"")
            yield Report(span, message, path=path, related=related)


@config_rule("DSL609", "nvme-offload-without-path", severity=Severity.ERROR)
def nvme_offload_without_path(ctx: ConfigContext) -> Iterator[Report]:
    """NVMe offload with no nvme_path: ZeRO-3 asserts when it builds the swapper."""
    read = effective(ctx.doc.value, ctx.settings)
    if read is None or read.zero_stage != 3:
        return
    for key, block in (("offload_param", read.offload_param), ("offload_optimizer", read.offload_optimizer)):
        if getattr(ctx.doc, "in_python", False) and ctx.doc.has_unknown(("zero_optimization", key)):
            continue  # `"nvme_path": args.nvme` in a dict config: set, to a value the files do not show
        if block is not None and block.device == "nvme" and not block.nvme_path:
            node = _nearest_node(ctx.doc, ("zero_optimization", key, "device"))
            yield Report(node.span,
                         f"{key}.device is 'nvme' but {key}.nvme_path is not set, so ZeRO-3 fails at start-up; set "
                         "nvme_path to a directory on a local NVMe drive")


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
        node = _nearest_node(ctx.doc, ("zero_optimization", key))
        pin = block.get("pin_memory")
        if pin is False:
            pin_node = node.children.get("pin_memory")
            fix = make_fix("edits", "set pin_memory to true", Applicability.UNSAFE,
                           edits=(replace_value_edit(ctx.doc, pin_node, "true"),)) if ctx.doc.strict and pin_node else None
            yield Report((pin_node or node).span,
                         f"{key}.pin_memory is false, so offload copies go through slow pageable memory; set it to "
                         "true unless host RAM or `ulimit -l` is tight", fix=fix)
        elif pin is None and old_default:
            edit = insert_pair_edit(ctx.doc, node, "pin_memory", "true") if ctx.doc.strict else None
            fix = make_fix("edits", "add \"pin_memory\": true", Applicability.UNSAFE, edits=(edit,)) if edit else None
            yield Report(node.key_span or node.span,
                         f"{key} has no pin_memory, which DeepSpeed {short(target_version(ctx.settings), 12)} defaults "
                         "to false (slow pageable copies); write \"pin_memory\": true", fix=fix)


@config_rule("DSL616", "duplicate-config-key", severity=Severity.ERROR)
def duplicate_config_key(ctx: ConfigContext) -> Iterator[Report]:
    """The same key twice in one object: DeepSpeed (reading a path) raises, json.load keeps the last."""
    for path, span in ctx.doc.duplicate_keys:
        yield Report(span,
                     f"'{short('.'.join(str(p) for p in path), 48)}' appears twice: DeepSpeed raises ValueError, the "
                     "HF Trainer silently keeps the last one; keep one")
