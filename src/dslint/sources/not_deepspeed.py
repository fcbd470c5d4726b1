"""Negative evidence: a JSON file whose keys look like a DeepSpeed config's but that is something else.

Keys such as `train_batch_size`, `gradient_accumulation_steps` or `fp16` are DeepSpeed's, but also
the HF Trainer's (TrainingArguments read from a JSON file) and many projects' own hyper-parameter
files. What tells them apart, soundly:
- TrainingArguments fields DeepSpeed reads nowhere in its config (`deepspeed`, `output_dir`,
  `per_device_train_batch_size`, `num_train_epochs`, ...): an HF arguments file;
- `fp16`/`bf16` as a scalar (DeepSpeed builds `DeepSpeedFP16Config(**value)`: a bool is a
  TypeError, so no working DeepSpeed config has it) beside a key DeepSpeed does not know;
- more top-level keys DeepSpeed does not know than keys it knows.
Such a file is `doubtful`: not a config by its keys alone.
"""
from __future__ import annotations

from functools import lru_cache

# TrainingArguments fields (transformers 5.24 training_args.py, plus 4.x names since removed:
# evaluation_strategy, overwrite_output_dir, logging_dir, warmup_ratio, per_gpu_*_batch_size,
# no_cuda) that no DeepSpeed config section reads. Optimizer-ish fields a DeepSpeed config writer
# misplaces at the top (learning_rate, weight_decay, adam_*, max_grad_norm) are left out: in a
# DeepSpeed config they are DSL601's findings, not evidence of another file kind.
HF_TRAINER_ONLY_KEYS = frozenset({
    "accelerator_config", "auto_find_batch_size", "bf16_full_eval", "data_seed", "dataloader_num_workers",
    "dataloader_persistent_workers", "dataloader_pin_memory", "dataloader_prefetch_factor", "ddp_backend",
    "ddp_find_unused_parameters", "ddp_timeout", "deepspeed", "disable_tqdm", "do_eval", "do_predict",
    "do_train", "eval_accumulation_steps", "eval_steps", "eval_strategy", "evaluation_strategy",
    "fp16_full_eval", "fsdp", "fsdp_config", "gradient_checkpointing", "gradient_checkpointing_kwargs",
    "greater_is_better", "hub_model_id", "hub_strategy", "hub_token", "label_names", "label_smoothing_factor",
    "load_best_model_at_end", "logging_dir", "logging_first_step", "logging_steps", "logging_strategy",
    "lr_scheduler_kwargs", "lr_scheduler_type", "max_steps", "metric_for_best_model", "num_train_epochs",
    "output_dir", "overwrite_output_dir", "per_device_eval_batch_size", "per_device_train_batch_size",
    "per_gpu_eval_batch_size", "per_gpu_train_batch_size", "prediction_loss_only", "push_to_hub",
    "remove_unused_columns", "report_to", "resume_from_checkpoint", "run_name", "save_on_each_node",
    "save_only_model", "save_steps", "save_strategy", "save_total_limit", "torch_compile", "use_cpu",
    "no_cuda", "warmup_ratio", "warmup_steps",
})
_PRECISION_KEYS = ("fp16", "bf16", "bfloat16")


def is_doubtful(value: dict, markers: frozenset) -> bool:
    """Does this dict, which has DeepSpeed marker keys (`markers`: sources/dsconfig.py's), carry evidence
    that it is another kind of file?"""
    keys = [key for key in value if isinstance(key, str)]
    if "deepspeed" in value or sum(1 for key in keys if key in HF_TRAINER_ONLY_KEYS) >= 2:
        return True
    if all(key in markers for key in keys):
        return False  # (without reading the schema's key tables)
    known = _known_top_level() | markers
    keys = [key for key in keys if not key.startswith(("_", "//", "#"))]  # (comments, by convention)
    unknown = sum(1 for key in keys if key not in known)
    if not unknown:
        return False
    scalar_precision = any(key in value and value[key] is not None and not isinstance(value[key], dict)
                           for key in _PRECISION_KEYS)
    return scalar_precision or unknown > len(keys) - unknown


@lru_cache(maxsize=1)
def _known_top_level() -> frozenset:
    """Every top-level key any supported DeepSpeed version reads, rejects as removed, or that users
    paste into DeepSpeed configs (the schema's foreign keys): all of them mark a DeepSpeed config."""
    from ..dsconfig_schema.keyindex import top_level_keys
    from ..dsconfig_schema.tables import toplevel
    from ..dsconfig_schema.versions import SUPPORTED_VERSIONS

    known: set = set(toplevel.FOREIGN_KEYS) | set(toplevel.DEPRECATED_TOP_LEVEL)
    for version in SUPPORTED_VERSIONS:
        known |= top_level_keys(version)
        known |= set(toplevel.REMOVED_TOP_LEVEL.get(version, {}))
    return frozenset(known)
