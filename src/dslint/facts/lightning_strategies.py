"""Lightning's strategy registry and DeepSpeedStrategy's default config, as data.

dslint never imports lightning while checking. This module says what the installed Lightning
(2.6.x) does with `strategy="deepspeed_stage_2_offload"` or `DeepSpeedStrategy(stage=3, ...)`:
which class the string names, with which arguments, and the DeepSpeed config that
`DeepSpeedStrategy.__init__` builds from them (`_create_default_config`). A test
(tests/test_lightning_registry.py) compares every entry with Lightning's own `StrategyRegistry`,
`STRATEGY_REGISTRY` and `DeepSpeedStrategy(...).config`, so the two cannot drift apart.
"""
from __future__ import annotations

import copy
from typing import Any, Optional

LIGHTNING_VERSION = "2.6.6"  # the release the table was compared with

_DDP_TRAINER = {
    "ddp": {"start_method": "popen"},
    "ddp_spawn": {"start_method": "spawn"},
    "ddp_fork": {"start_method": "fork"},
    "ddp_notebook": {"start_method": "fork"},
    "ddp_find_unused_parameters_false": {"find_unused_parameters": False, "start_method": "popen"},
    "ddp_find_unused_parameters_true": {"find_unused_parameters": True, "start_method": "popen"},
    "ddp_spawn_find_unused_parameters_false": {"find_unused_parameters": False, "start_method": "spawn"},
    "ddp_spawn_find_unused_parameters_true": {"find_unused_parameters": True, "start_method": "spawn"},
    "ddp_fork_find_unused_parameters_false": {"find_unused_parameters": False, "start_method": "fork"},
    "ddp_fork_find_unused_parameters_true": {"find_unused_parameters": True, "start_method": "fork"},
    "ddp_notebook_find_unused_parameters_false": {"find_unused_parameters": False, "start_method": "fork"},
    "ddp_notebook_find_unused_parameters_true": {"find_unused_parameters": True, "start_method": "fork"},
}
_DEEPSPEED = {
    "deepspeed": {},
    "deepspeed_stage_1": {"stage": 1},
    "deepspeed_stage_2": {"stage": 2},
    "deepspeed_stage_2_offload": {"stage": 2, "offload_optimizer": True},
    "deepspeed_stage_3": {"stage": 3},
    "deepspeed_stage_3_offload": {"stage": 3, "offload_optimizer": True, "offload_parameters": True},
    "deepspeed_stage_3_offload_nvme": {"stage": 3, "offload_optimizer": True, "offload_parameters": True,
                                       "remote_device": "nvme", "offload_params_device": "nvme",
                                       "offload_optimizer_device": "nvme"},
}

# name -> (class name, init_params), as `register()` stores them.
TRAINER_STRATEGIES: dict[str, tuple[str, dict]] = {
    **{name: ("DDPStrategy", params) for name, params in _DDP_TRAINER.items()},
    **{name: ("DeepSpeedStrategy", params) for name, params in _DEEPSPEED.items()},
    "fsdp": ("FSDPStrategy", {}),
    "fsdp_cpu_offload": ("FSDPStrategy", {"cpu_offload": True}),
    "single_device": ("SingleDeviceStrategy", {}),
    "single_xla": ("SingleDeviceXLAStrategy", {}),
    "xla_debug": ("XLAStrategy", {"debug": True}),
    "xla": ("XLAStrategy", {}),
    "single_tpu": ("SingleTPUStrategy", {}),
}

FABRIC_STRATEGIES: dict[str, tuple[str, dict]] = {
    "ddp": ("DDPStrategy", {"start_method": "popen"}),
    "ddp_spawn": ("DDPStrategy", {"start_method": "spawn"}),
    "ddp_fork": ("DDPStrategy", {"start_method": "fork"}),
    "ddp_notebook": ("DDPStrategy", {"start_method": "fork"}),
    "ddp_find_unused_parameters_true": ("DDPStrategy", {"find_unused_parameters": True, "start_method": "popen"}),
    "dp": ("DataParallelStrategy", {}),
    **{name: ("DeepSpeedStrategy", params) for name, params in _DEEPSPEED.items()},
    "deepspeed_stage_1_offload": ("DeepSpeedStrategy", {"stage": 1, "offload_optimizer": True}),
    "fsdp": ("FSDPStrategy", {}),
    "fsdp_cpu_offload": ("FSDPStrategy", {"cpu_offload": True}),
    "single_xla": ("SingleDeviceXLAStrategy", {}),
    "xla_fsdp": ("XLAFSDPStrategy", {}),
    "xla": ("XLAStrategy", {}),
    "single_tpu": ("SingleTPUStrategy", {}),
}

# DeepSpeedStrategy.__init__ defaults that shape the config (lightning/pytorch/strategies/deepspeed.py).
DEEPSPEED_STRATEGY_DEFAULTS: dict[str, Any] = {
    "zero_optimization": True, "stage": 2, "remote_device": None, "offload_optimizer": False,
    "offload_parameters": False, "offload_params_device": "cpu", "nvme_path": "/local_nvme",
    "params_buffer_count": 5, "params_buffer_size": 100_000_000, "max_in_cpu": 1_000_000_000,
    "offload_optimizer_device": "cpu", "optimizer_buffer_count": 4, "block_size": 1048576, "queue_depth": 8,
    "single_submit": False, "overlap_events": True, "thread_count": 1, "pin_memory": False,
    "sub_group_size": 1_000_000_000_000, "contiguous_gradients": True, "overlap_comm": True,
    "allgather_partitions": True, "reduce_scatter": True, "allgather_bucket_size": 200_000_000,
    "reduce_bucket_size": 200_000_000, "zero_allow_untested_optimizer": True, "logging_batch_size_per_gpu": "auto",
    "config": None, "partition_activations": False, "cpu_checkpointing": False,
    "contiguous_memory_optimization": False, "synchronize_checkpoint_boundary": False,
}
DEEPSPEED_ENV_VAR = "PL_DEEPSPEED_CONFIG_PATH"


def strategy_entry(name: str, *, fabric: bool = False) -> Optional[tuple[str, dict]]:
    """(class name, init_params) for a strategy string; Lightning lower-cases it first."""
    table = FABRIC_STRATEGIES if fabric else TRAINER_STRATEGIES
    return table.get(name.lower())


def deepspeed_default_config(**kwargs: Any) -> dict:
    """The config `DeepSpeedStrategy(**kwargs)` builds when no `config=` is given."""
    a = {**DEEPSPEED_STRATEGY_DEFAULTS, **kwargs}
    cfg: dict[str, Any] = {
        "activation_checkpointing": {
            "partition_activations": a["partition_activations"],
            "cpu_checkpointing": a["cpu_checkpointing"],
            "contiguous_memory_optimization": a["contiguous_memory_optimization"],
            "synchronize_checkpoint_boundary": a["synchronize_checkpoint_boundary"],
        },
        "aio": {
            "block_size": a["block_size"], "queue_depth": a["queue_depth"], "single_submit": a["single_submit"],
            "overlap_events": a["overlap_events"], "thread_count": a["thread_count"],
        },
    }
    if a["zero_optimization"]:
        zero: dict[str, Any] = {
            "stage": a["stage"], "contiguous_gradients": a["contiguous_gradients"], "overlap_comm": a["overlap_comm"],
            "allgather_partitions": a["allgather_partitions"], "reduce_scatter": a["reduce_scatter"],
            "allgather_bucket_size": a["allgather_bucket_size"], "reduce_bucket_size": a["reduce_bucket_size"],
            "sub_group_size": a["sub_group_size"],
        }
        if a["offload_optimizer"]:
            zero["offload_optimizer"] = {
                "device": a["offload_optimizer_device"], "nvme_path": a["nvme_path"],
                "buffer_count": a["optimizer_buffer_count"], "pin_memory": a["pin_memory"],
            }
        if a["offload_parameters"]:
            zero["offload_param"] = {
                "device": a["offload_params_device"], "nvme_path": a["nvme_path"],
                "buffer_count": a["params_buffer_count"], "buffer_size": a["params_buffer_size"],
                "max_in_cpu": a["max_in_cpu"], "pin_memory": a["pin_memory"],
            }
        cfg = {"zero_allow_untested_optimizer": a["zero_allow_untested_optimizer"], "zero_optimization": zero, **cfg}
    if a["logging_batch_size_per_gpu"] != "auto":
        cfg = {"train_micro_batch_size_per_gpu": a["logging_batch_size_per_gpu"], **cfg}
    return copy.deepcopy(cfg)


def strategy_deepspeed_config(name: str, *, fabric: bool = False) -> Optional[dict]:
    """The DeepSpeed config a `deepspeed*` strategy string builds (None for other strategies)."""
    entry = strategy_entry(name, fabric=fabric)
    if entry is None or entry[0] != "DeepSpeedStrategy":
        return None
    return deepspeed_default_config(**entry[1])

