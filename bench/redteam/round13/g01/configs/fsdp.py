"""FSDP settings shared by the fine-tuning recipes."""
from dataclasses import dataclass

import torch
from torch.distributed.fsdp import BackwardPrefetch, MixedPrecision, ShardingStrategy

SHARDING = {
    "full": ShardingStrategy.FULL_SHARD,
    "grad_op": ShardingStrategy.SHARD_GRAD_OP,
    "hybrid": ShardingStrategy.HYBRID_SHARD,
    "none": ShardingStrategy.NO_SHARD,
}

PRECISION = {
    "bf16": MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16, buffer_dtype=torch.bfloat16),
    "fp32": None,
}


@dataclass
class FSDPConfig:
    sharding: str = "full"
    precision: str = "bf16"
    limit_all_gathers: bool = True
    forward_prefetch: bool = False
    backward_prefetch: BackwardPrefetch = BackwardPrefetch.BACKWARD_PRE
    # GPU the CPU-initialised shards are moved to before the first all-gather
    device_id: int = 0
    use_orig_params: bool = False

    @classmethod
    def from_args(cls, args):
        return cls(sharding=args.sharding, precision="bf16" if args.bf16 else "fp32")

    def strategy(self) -> ShardingStrategy:
        return SHARDING[self.sharding]

    def mixed_precision(self):
        return PRECISION[self.precision]
