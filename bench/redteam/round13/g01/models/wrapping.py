import functools

import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from transformers import AutoModelForCausalLM
from transformers.models.llama.modeling_llama import LlamaDecoderLayer


def load_base_model(name: str):
    # weights stay on the CPU; FSDP moves each shard to the GPU while wrapping
    return AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16, low_cpu_mem_usage=True)


def shard_model(model, fsdp_cfg):
    auto_wrap = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={LlamaDecoderLayer})
    return FSDP(
        model,
        auto_wrap_policy=auto_wrap,
        sharding_strategy=fsdp_cfg.strategy(),
        mixed_precision=fsdp_cfg.mixed_precision(),
        backward_prefetch=fsdp_cfg.backward_prefetch,
        forward_prefetch=fsdp_cfg.forward_prefetch,
        limit_all_gathers=fsdp_cfg.limit_all_gathers,
        use_orig_params=fsdp_cfg.use_orig_params,
        device_id=fsdp_cfg.device_id,
    )
