"""DeepSpeed's top-level keys and loosely read sections, per version, as data.

Top-level keys are read with `deepspeed/runtime/config_utils.py:get_scalar_param` (a plain
dict.get): DeepSpeed checks neither their names nor their types, so a typo is silently ignored.
Sources: `deepspeed/runtime/constants.py` and `config.py:DeepSpeedConfig._initialize_params`
of 0.19.6 (GitHub snapshot edaa7221) and 0.19.8 (package registry).
"""

# Value kinds of top-level scalars:
#   int       a whole number; DeepSpeed does arithmetic or comparisons with it
#   number    int or float
#   bool      true/false; DeepSpeed tests its truth, so the string "false" counts as true
#   comm-type "fp16" | "bf16" | "fp32" (any case) or null, else ValueError at parse
#   reduce-op "mean" | "sum" (any case), else ValueError at parse
#   any       not checked
SCALARS_COMMON = {
    "train_batch_size": ("int", None),
    "train_micro_batch_size_per_gpu": ("int", None),
    "gradient_accumulation_steps": ("int", None),
    "managed_gradient_accumulation": ("bool", True),
    "steps_per_print": ("int", None),
    "dump_state": ("bool", False),
    "disable_allgather": ("bool", False),
    "communication_data_type": ("comm-type", None),
    "seq_parallel_communication_data_type": ("comm-type", "fp32"),
    "prescale_gradients": ("bool", False),
    "gradient_predivide_factor": ("number", 1.0),
    "gradient_allreduce_op": ("reduce-op", "mean"),
    "gradient_clipping": ("number", 1.0),  # was 0.0 before v0.19.3 (PR #8068)
    "wall_clock_breakdown": ("bool", False),
    "memory_breakdown": ("bool", False),
    "vocabulary_size": ("int", None),
    "zero_allow_untested_optimizer": ("bool", False),
    "zero_force_ds_cpu_optimizer": ("bool", True),
    "dataloader_drop_last": ("bool", False),
    "log_level": ("any", None),
    "use_data_before_expert_parallelism": ("bool", False),
    "sequence_parallel_size": ("int", None),  # read in DeepSpeedConfig.__init__ (no mpu)
    "allgather_size": ("int", 500000000),  # legacy: read only when zero_optimization is a bool
}

SCALARS_BY_VERSION = {
    "0.19.6": {"sparse_gradients": ("bool", False), "graph_harvesting": ("bool", False)},
    "0.19.8": {"disable_python_gc": ("bool", False)},
}

# Batch keys: a non-number here is a TypeError in config.py:_batch_assertion at parse time.
BATCH_KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")

# Sections read with dict.get (unknown keys inside are silently ignored by DeepSpeed).
# A tuple lists every key DeepSpeed reads there; None means "not checked inside"
# (free-form, or read in too many places to list safely).
LOOSE_SECTIONS_COMMON = {
    "optimizer": ("type", "params", "legacy_fusion"),
    "scheduler": ("type", "params"),
    "activation_checkpointing": (
        "partition_activations",
        "contiguous_memory_optimization",
        "cpu_checkpointing",
        "number_checkpoints",
        "synchronize_checkpoint_boundary",
        "profile",
    ),
    "aio": ("block_size", "queue_depth", "intra_op_parallelism", "single_submit", "overlap_events", "use_gds"),
    "flops_profiler": (
        "enabled",
        "recompute_fwd_factor",
        "profile_step",
        "module_depth",
        "top_modules",
        "detailed",
        "output_file",
    ),
    "torch_autocast": ("enabled", "dtype", "lower_precision_safe_modules"),
    "data_types": ("grad_accum_dtype", "param_dtype", "buffer_dtype"),
    "timers": ("throughput",),
    "checkpoint": None,
    "pipeline": None,  # config.py:get_pipeline_config copies every key
    "autotuning": None,
    "data_efficiency": None,
    "datastates_ckpt": None,
    "expert_parallel": None,
}

LOOSE_SECTIONS_BY_VERSION = {
    "0.19.6": {
        "amp": None,  # every key but "enabled" goes to apex amp.initialize
        "elasticity": None,
        "eigenvalue": None,
        "quantize_training": None,
        "progressive_layer_drop": None,
        "curriculum_learning": None,
        "sparse_attention": None,
        "compression_training": None,
        "nebula": None,
    },
    "0.19.8": {
        "data_types": ("grad_accum_dtype", "param_dtype", "buffer_dtype", "keep_in_fp32_modules"),
    },
}

# Keys DeepSpeed renamed: the old name is silently ignored (section, old) -> (new, since).
RENAMED_KEYS = {
    ("aio", "thread_count"): ("intra_op_parallelism", "v0.16.4"),
}

# Keys from other tools that users paste into a DeepSpeed config, where nothing reads them:
# key -> (the DeepSpeed key meant, if any; where the setting really goes). Research S1, E9.
FOREIGN_KEYS = {
    "comms_config": ("comms_logger", "DeepSpeed's communication logging section is 'comms_logger'"),
    "monitor_config": (None, "DeepSpeed's monitors are the top-level 'tensorboard', 'wandb', 'csv_monitor' "
                       "and 'comet' sections"),
    "zero3_init_flag": (None, "it is an accelerate setting (accelerate config / DeepSpeedPlugin)"),
    "zero3_save_16bit_model": ("zero_optimization.stage3_gather_16bit_weights_on_model_save",
                               "it is an accelerate setting; DeepSpeed's key is "
                               "'zero_optimization.stage3_gather_16bit_weights_on_model_save'"),
    "dist_init_required": (None, "it is an argument of deepspeed.initialize, not a config key"),
    "cuda_visible_devices": (None, "GPU selection is the CUDA_VISIBLE_DEVICES environment variable or the "
                             "launcher's --include/--num_gpus"),
    "opt_level": (None, "it is an Apex AMP setting, which DeepSpeed's fp16 does not have"),
    "fp16_opt_level": (None, "it is an Apex AMP setting, which DeepSpeed's fp16 does not have"),
}

# Keys that are comments by convention ("_comment", "//"): nobody means them to be read.
COMMENT_KEY_PREFIXES = ("_", "//", "#")

# Legacy spellings DeepSpeed still reads: (section or "", old) -> new.
DEPRECATED_TOP_LEVEL = {"bfloat16": "bf16"}

# DeepSpeed 0.19.8 config.py:_reject_removed_config_keys: presence alone raises
# DeepSpeedConfigError (issue #8489). What to use instead, where there is something.
REMOVED_TOP_LEVEL = {
    "0.19.8": {
        "nebula": "Nebula checkpointing was removed",
        "compression_training": "the DeepSpeed compression library was removed",
        "amp": "Apex AMP integration was removed; use 'fp16', 'bf16' or 'torch_autocast'",
        "quantize_training": "Mixture-of-Quantization ('quantize_training') was removed",
        "sparse_gradients": "sparse embedding-gradient compression was removed",
        "eigenvalue": "eigenvalue-based MoQ was removed",
        "sparse_attention": "DeepSpeed Sparse Attention was removed",
        "elasticity": "elastic training was removed; set the batch keys directly",
        "graph_harvesting": "graph harvesting was removed",
        "curriculum_learning": "legacy 'curriculum_learning' was removed; use "
        "'data_efficiency.data_sampling.curriculum_learning'",
        "progressive_layer_drop": "Progressive Layer Dropping was removed",
    },
}
REMOVED_ZERO_KEYS = {
    "0.19.8": {
        "mics_shard_size": "MiCS ZeRO-3 sharding was removed",
        "mics_hierarchical_params_gather": "MiCS ZeRO-3 sharding was removed",
        "zeropp_loco_param": "LoCo-ZeRO++ was removed",
    },
}

# config.py:DtypeEnum values accepted by torch_autocast.dtype (anything else: ValueError).
DTYPE_NAMES = (
    "torch.float16", "fp16", "float16", "half",
    "torch.float32", "fp32", "float32", "float",
    "torch.int8", "int8",
    "torch.bfloat16", "bf16", "bfloat16",
)
COMM_TYPES = ("fp16", "bf16", "fp32")
REDUCE_OPS = ("mean", "sum")
TAG_VALIDATION_MODES = ("WARN", "IGNORE", "FAIL")

# config.py:DEEPSPEED_OPTIMIZERS (compared lower-cased); other names must be torch.optim classes.
OPTIMIZERS = {
    "0.19.6": ("adagrad", "adam", "adamw", "lamb", "onebitadam", "zerooneadam", "onebitlamb",
               "muadam", "muadamw", "musgd", "lion", "muon"),
    "0.19.8": ("adagrad", "adam", "adamw", "lamb", "muadam", "muadamw", "musgd", "lion", "muon"),
}
# lr_schedules.py:VALID_LR_SCHEDULES; other names must be torch.optim.lr_scheduler classes.
SCHEDULERS = ("LRRangeTest", "OneCycle", "WarmupLR", "WarmupDecayLR", "WarmupCosineLR")


def scalars(version: str) -> dict:
    """Top-level scalar keys known to `version`: name -> (value kind, default)."""
    return {**SCALARS_COMMON, **SCALARS_BY_VERSION.get(version, {})}


def loose_sections(version: str) -> dict:
    """Loosely read sections known to `version`: name -> known keys (or None: not checked)."""
    return {**LOOSE_SECTIONS_COMMON, **LOOSE_SECTIONS_BY_VERSION.get(version, {})}
