import argparse
import functools
import os

import numpy as np
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import MixedPrecision, ShardingStrategy
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoConfig, AutoModelForCausalLM
from transformers.models.llama.modeling_llama import LlamaDecoderLayer

from llmtrain.hooks import CheckpointHook, LoggerHook
from llmtrain.runner import Runner


class PackedTokens(torch.utils.data.Dataset):
    def __init__(self, path, seq_len):
        self.tokens = np.load(path, mmap_mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return len(self.tokens) // self.seq_len

    def __getitem__(self, i):
        chunk = self.tokens[i * self.seq_len:(i + 1) * self.seq_len]
        return {"input_ids": torch.from_numpy(chunk.astype(np.int64))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-config", default="configs/llama_1b.json")
    parser.add_argument("--data", default="data/tokens.npy")
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--out", default="checkpoints/llama_1b")
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")

    config = AutoConfig.from_pretrained(args.model_config)
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    wrap_policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={LlamaDecoderLayer})
    bf16 = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16, buffer_dtype=torch.bfloat16)
    model = FSDP(model, auto_wrap_policy=wrap_policy, mixed_precision=bf16,
                 sharding_strategy=ShardingStrategy.FULL_SHARD, device_id=torch.cuda.current_device(),
                 use_orig_params=True, limit_all_gathers=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1)

    dataset = PackedTokens(args.data, args.seq_len)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=DistributedSampler(dataset),
                        num_workers=2, pin_memory=True, drop_last=True)
    runner = Runner(model, optimizer, loader, args.epochs,
                    hooks=[LoggerHook(interval=20), CheckpointHook(args.out, interval=1)])
    runner.train()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
