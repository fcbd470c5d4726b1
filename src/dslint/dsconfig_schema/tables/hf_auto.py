"""Which "auto" values the HF Trainer and accelerate fill in, as data.

transformers `integrations/deepspeed.py:HfTrainerDeepSpeedConfig.trainer_config_process` /
`trainer_config_finalize` replace "auto" at exactly these paths; accelerate's
`utils/dataclasses.py:DeepSpeedPlugin` additionally fills the ones in ACCELERATE_ONLY.
An "auto" anywhere else is dropped by DeepSpeed's `config_utils.py:DeepSpeedConfigModel`
(strict sections) and the field silently takes its default.
"""

HF_TRAINER_FILLS = frozenset({
    ("train_micro_batch_size_per_gpu",),
    ("gradient_accumulation_steps",),
    ("train_batch_size",),
    ("gradient_clipping",),
    ("optimizer", "params", "lr"),
    ("optimizer", "params", "betas"),
    ("optimizer", "params", "eps"),
    ("optimizer", "params", "weight_decay"),
    ("scheduler", "params", "warmup_min_lr"),
    ("scheduler", "params", "warmup_max_lr"),
    ("scheduler", "params", "warmup_num_steps"),
    ("scheduler", "params", "total_num_steps"),
    ("fp16", "enabled"),
    ("bf16", "enabled"),
    ("amp", "enabled"),
    ("amp", "opt_level"),
    ("zero_optimization", "reduce_bucket_size"),
    ("zero_optimization", "stage3_prefetch_bucket_size"),
    ("zero_optimization", "stage3_param_persistence_threshold"),
})

ACCELERATE_ONLY_FILLS = frozenset({
    ("zero_optimization", "stage"),
    ("zero_optimization", "offload_optimizer", "device"),
    ("zero_optimization", "offload_param", "device"),
    ("zero_optimization", "offload_optimizer", "nvme_path"),
    ("zero_optimization", "offload_param", "nvme_path"),
    ("zero_optimization", "stage3_gather_16bit_weights_on_model_save"),
})

# "auto" values DeepSpeed itself understands (not placeholders): path -> where.
DEEPSPEED_OWN_AUTO = {
    ("data_types", "keep_in_fp32_modules"): "0.19.8",
    ("zero_optimization", "zenflow", "select_strategy"): "all",
    ("zero_optimization", "zenflow", "select_interval"): "all",
    ("zero_optimization", "zenflow", "update_interval"): "all",
}


def fills(filler: str) -> frozenset:
    """The paths where `filler` ("trainer" or "accelerate") replaces "auto"."""
    if filler == "accelerate":
        return HF_TRAINER_FILLS | ACCELERATE_ONLY_FILLS
    return HF_TRAINER_FILLS
