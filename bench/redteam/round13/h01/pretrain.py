"""GPT-350M pretraining with DeepSpeed ZeRO-2, started by slurm/pretrain.sbatch (srun torchrun)."""
import argparse
import os

import deepspeed
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from transformers import GPT2Config, GPT2LMHeadModel

from data import TokenBlocks


def parse_args():
    parser = argparse.ArgumentParser(description="GPT pretraining")
    parser.add_argument("--data-path", required=True)
    parser.add_argument("--seq-len", type=int, default=1024)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--save-dir", default="checkpoints/gpt350m")
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed(dist_backend="nccl")

    config = GPT2Config(n_positions=args.seq_len, n_embd=1024, n_layer=24, n_head=16)
    model = GPT2LMHeadModel(config)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = TokenBlocks(args.data_path, args.seq_len)
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank(),
                                 shuffle=True, seed=1234)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=4, pin_memory=True, drop_last=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        engine.train()
        for step, tokens in enumerate(loader):
            tokens = tokens.to(engine.device, non_blocking=True)
            loss = engine(input_ids=tokens, labels=tokens).loss
            engine.backward(loss)
            engine.step()
            if step % 100 == 0 and dist.get_rank() == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        engine.save_checkpoint(args.save_dir, tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
