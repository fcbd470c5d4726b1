"""effective_config: a typed view of a DeepSpeed config with DeepSpeed's defaults applied.

Values follow what DeepSpeed reads (legacy spellings, deprecated keys, "auto" dropped to the
default), except that keys the HF Trainer or accelerate fill keep the value "auto": whether
they end up filled depends on how the job is launched, which the rules know and we do not.
Never raises on a malformed config: a value of the wrong type reads as the default
(validate_config reports it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from .coerce import lax_bool, lax_int
from .tables import sections, toplevel
from .versions import resolve_version

Auto = Literal["auto"]
AUTO = "auto"


@dataclass(frozen=True)
class OffloadSettings:
    """One offload block (zero_optimization.offload_optimizer or .offload_param)."""

    device: str  # "none" | "cpu" | "nvme" | "auto" (accelerate fills it)
    pin_memory: bool  # DeepSpeed's default is True since v0.19.5 (False before)
    pin_memory_set: bool  # whether the config writes pin_memory itself
    nvme_path: str | None | Auto


@dataclass(frozen=True)
class EffectiveConfig:
    """The settings rules ask about, as DeepSpeed `version` will see them."""

    version: str
    zero_stage: int | Auto
    offload_optimizer: OffloadSettings | None  # None: no offload_optimizer block
    offload_param: OffloadSettings | None  # None: no offload_param block
    fp16_enabled: bool | Auto
    bf16_enabled: bool | Auto
    train_batch_size: int | float | Auto | None
    train_micro_batch_size_per_gpu: int | float | Auto | None
    gradient_accumulation_steps: int | float | Auto | None
    optimizer_type: str | None
    scheduler_type: str | None
    gradient_clipping: float | Auto
    stage3_gather_16bit_weights_on_model_save: bool | Auto
    overlap_comm: bool
    contiguous_gradients: bool
    reduce_bucket_size: int | Auto
    allgather_bucket_size: int
    zero_allow_untested_optimizer: bool
    zero_force_ds_cpu_optimizer: bool
    grad_accum_dtype: str | None
    sequence_parallel_size: int | None
    explicit: frozenset[str]  # dotted paths the config writes, e.g. "zero_optimization.stage"

    @property
    def offload_optimizer_device(self) -> str:
        """"none" when there is no optimizer offload block."""
        return self.offload_optimizer.device if self.offload_optimizer else "none"

    @property
    def offload_param_device(self) -> str:
        """"none" when there is no parameter offload block."""
        return self.offload_param.device if self.offload_param else "none"

    @property
    def nvme_path(self) -> str | None:
        """The NVMe path of the parameter or optimizer offload block, if any."""
        for block in (self.offload_param, self.offload_optimizer):
            if block and block.nvme_path:
                return block.nvme_path
        return None

    def is_set(self, dotted: str) -> bool:
        """Whether the config writes this key itself ("zero_optimization.offload_optimizer.pin_memory")."""
        return dotted in self.explicit


def _paths(data: Any, prefix: str = "") -> set[str]:
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            dotted = f"{prefix}{key}"
            found.add(dotted)
            found |= _paths(value, dotted + ".")
    return found


def _bool(value: Any, default: bool) -> bool:
    read = lax_bool(value)
    return default if read is None else read


def _int(value: Any, default: Any) -> Any:
    read = lax_int(value)
    return default if read is None else read


def _batch(value: Any) -> int | float | Auto | None:
    if value == AUTO:
        return AUTO
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _offload(block: Any, defaults: dict, filled_by_accelerate: bool) -> OffloadSettings | None:
    if not isinstance(block, dict):
        return None
    device = block.get("device", "none")
    if device == AUTO:
        device = AUTO if filled_by_accelerate else "none"
    elif not isinstance(device, str) or device not in ("none", "cpu", "nvme"):
        device = "none"
    nvme = block.get("nvme_path")
    return OffloadSettings(
        device=device,
        pin_memory=_bool(block.get("pin_memory"), defaults["pin_memory"]["default"]),
        pin_memory_set="pin_memory" in block and block["pin_memory"] != AUTO,
        nvme_path=nvme if isinstance(nvme, str) else None,
    )


def effective_config(data: dict, *, version: str | None = None) -> EffectiveConfig:
    """The typed view of `data` with DeepSpeed `version`'s defaults (None: the newest supported)."""
    version = resolve_version(version)
    data = _dict(data)
    # the field tables alone: building the pydantic models (validation's) costs more than a check of 10 files
    tables = sections(version).MODELS
    zero_fields = tables["DeepSpeedZeroConfig"]["fields"]

    def zdefault(name: str) -> Any:
        return zero_fields[name]["default"]

    raw_zero = data.get("zero_optimization", {})
    if isinstance(raw_zero, bool):
        zero: dict = {"stage": 1 if raw_zero else 0}
    else:
        zero = _dict(raw_zero)

    stage_raw = zero.get("stage", 0)
    zero_stage: int | Auto = AUTO if stage_raw == AUTO else _int(stage_raw, 0)
    if zero_stage not in (0, 1, 2, 3, AUTO):
        zero_stage = 0

    offload_optimizer = _offload(zero.get("offload_optimizer"),
                                 tables["DeepSpeedZeroOffloadOptimizerConfig"]["fields"], True)
    offload_param = _offload(zero.get("offload_param"), tables["DeepSpeedZeroOffloadParamConfig"]["fields"], True)
    # Deprecated booleans DeepSpeed still maps onto the offload blocks.
    if offload_optimizer is None and _bool(zero.get("cpu_offload"), False):
        offload_optimizer = OffloadSettings("cpu", True, False, None)
    if offload_param is None and _bool(zero.get("cpu_offload_param"), False):
        offload_param = OffloadSettings("cpu", True, False, None)

    fp16 = _dict(data.get("fp16"))
    bf16 = _dict(data["bf16"] if "bf16" in data else data.get("bfloat16"))
    fp16_enabled: bool | Auto = AUTO if fp16.get("enabled") == AUTO else _bool(fp16.get("enabled"), False)
    if "bf16" in data:
        bf16_enabled: bool | Auto = AUTO if bf16.get("enabled") == AUTO else _bool(bf16.get("enabled"), False)
    else:  # nobody fills "auto" under the legacy key: DeepSpeed drops it to False
        bf16_enabled = _bool(bf16.get("enabled"), False) if bf16.get("enabled") != AUTO else False

    gather_key = next((k for k in ("stage3_gather_16bit_weights_on_model_save", "gather_16bit_weights_on_model_save",
                                   "stage3_gather_fp16_weights_on_model_save") if k in zero), None)
    gather_raw = zero.get(gather_key) if gather_key else False
    gather: bool | Auto = (AUTO if gather_raw == AUTO and gather_key == "stage3_gather_16bit_weights_on_model_save"
                           else _bool(gather_raw, False))

    overlap_raw = zero.get("overlap_comm")
    overlap = _bool(overlap_raw, zero_stage == 3) if overlap_raw not in (None, AUTO) else zero_stage == 3

    reduce_raw = zero.get("reduce_bucket_size")
    reduce_bucket: int | Auto = AUTO if reduce_raw == AUTO else _int(reduce_raw, zdefault("reduce_bucket_size"))

    clip_raw = data.get("gradient_clipping", toplevel.scalars(version)["gradient_clipping"][1])
    clipping: float | Auto = AUTO if clip_raw == AUTO else (
        float(clip_raw) if isinstance(clip_raw, (int, float)) and not isinstance(clip_raw, bool)
        else toplevel.scalars(version)["gradient_clipping"][1])

    optimizer = _dict(data.get("optimizer"))
    scheduler = _dict(data.get("scheduler"))
    data_types = _dict(data.get("data_types"))
    sp = data.get("sequence_parallel_size")

    return EffectiveConfig(
        version=version,
        zero_stage=zero_stage,
        offload_optimizer=offload_optimizer,
        offload_param=offload_param,
        fp16_enabled=fp16_enabled,
        bf16_enabled=bf16_enabled,
        train_batch_size=_batch(data.get("train_batch_size")),
        train_micro_batch_size_per_gpu=_batch(data.get("train_micro_batch_size_per_gpu")),
        gradient_accumulation_steps=_batch(data.get("gradient_accumulation_steps")),
        optimizer_type=optimizer.get("type") if isinstance(optimizer.get("type"), str) else None,
        scheduler_type=scheduler.get("type") if isinstance(scheduler.get("type"), str) else None,
        gradient_clipping=clipping,
        stage3_gather_16bit_weights_on_model_save=gather,
        overlap_comm=overlap,
        contiguous_gradients=_bool(zero.get("contiguous_gradients"), zdefault("contiguous_gradients")),
        reduce_bucket_size=reduce_bucket,
        allgather_bucket_size=_int(zero.get("allgather_bucket_size"), zdefault("allgather_bucket_size")),
        zero_allow_untested_optimizer=_bool(data.get("zero_allow_untested_optimizer"), False),
        zero_force_ds_cpu_optimizer=_bool(data.get("zero_force_ds_cpu_optimizer"), True),
        grad_accum_dtype=data_types.get("grad_accum_dtype") if isinstance(data_types.get("grad_accum_dtype"), str)
        else None,
        sequence_parallel_size=_int(sp, None) if sp is not None else None,
        explicit=frozenset(_paths(data)),
    )


@lru_cache(maxsize=1)
def _installed_version():
    from .versions import detect_deepspeed_version

    return detect_deepspeed_version()


def target_version(settings) -> str | None:
    """The DeepSpeed version a check is for: the `deepspeed-version` setting, else the installed package's."""
    return getattr(settings, "deepspeed_version", None) or _installed_version()


def effective_for(value, settings) -> EffectiveConfig | None:
    """The config as DeepSpeed reads it (stage, offload, precision, legacy spellings included), for the
    target version; None when there is no config or the schema cannot read it (never raises): the one
    reader of stage, offload and precision that rules and facts share."""
    if not isinstance(value, dict):
        return None
    try:
        return effective_config(value, version=target_version(settings))
    except Exception:  # a schema gap must never take a check down
        return None
