"""GPT-2 (124M) pretraining on OpenWebText token shards with DeepSpeed ZeRO."""
import argparse
import json
import os

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import GPT2Config, GPT2LMHeadModel

from data.tokens import TokenWindows
from engine import evaluate, train_one_epoch
from utils.ds_utils import get_ds_config


def get_args():
    parser = argparse.ArgumentParser(description="GPT-2 pretraining")
    parser.add_argument("--local_rank", type=int, default=-1, help="set by the deepspeed launcher")
    parser.add_argument("--data_path", type=str, default="data/openwebtext")
    parser.add_argument("--output_dir", type=str, default="runs/gpt2-124m")
    parser.add_argument("--seq_len", type=int, default=1024)
    parser.add_argument("--n_layer", type=int, default=12)
    parser.add_argument("--n_head", type=int, default=12)
    parser.add_argument("--n_embd", type=int, default=768)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--global_batch_size", type=int, default=256)
    parser.add_argument("--micro_batch_size", type=int, default=16)
    parser.add_argument("--grad_accum_steps", type=int, default=4)
    parser.add_argument("--lr", type=float, default=6e-4)
    parser.add_argument("--weight_decay", type=float, default=0.1)
    parser.add_argument("--warmup_steps", type=int, default=2000)
    parser.add_argument("--clip_grad", type=float, default=1.0)
    parser.add_argument("--zero_stage", type=int, default=1, choices=[0, 1, 2])
    parser.add_argument("--no_bf16", action="store_true")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max_steps", type=int, default=0, help="0: run all epochs")
    parser.add_argument("--eval_batches", type=int, default=200)
    parser.add_argument("--log_interval", type=int, default=10)
    parser.add_argument("--save_interval", type=int, default=1, help="epochs between checkpoints")
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1337)
    return parser.parse_args()


def main():
    args = get_args()
    deepspeed.init_distributed(dist_backend="nccl")
    local_rank = int(os.environ.get("LOCAL_RANK", args.local_rank))
    torch.cuda.set_device(local_rank)
    rank, world_size = torch.distributed.get_rank(), torch.distributed.get_world_size()
    torch.manual_seed(args.seed + rank)

    train_set = TokenWindows(os.path.join(args.data_path, "train.bin"), args.seq_len)
    val_set = TokenWindows(os.path.join(args.data_path, "val.bin"), args.seq_len)
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True, seed=args.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.micro_batch_size, sampler=train_sampler,
                              num_workers=args.num_workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.micro_batch_size, sampler=val_sampler,
                            num_workers=args.num_workers, pin_memory=True)

    config = GPT2Config(n_positions=args.seq_len, n_layer=args.n_layer, n_head=args.n_head, n_embd=args.n_embd,
                        resid_pdrop=args.dropout, embd_pdrop=args.dropout, attn_pdrop=args.dropout)
    model = GPT2LMHeadModel(config)
    ds_config = get_ds_config(args)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters(),
                                           config=ds_config)
    if rank == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        with open(os.path.join(args.output_dir, "ds_config.json"), "w") as f:
            json.dump(ds_config, f, indent=2)
        print(f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters, world size {world_size}")

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(engine, train_loader, epoch, args)
        val_loss, val_ppl = evaluate(engine, val_loader, args.eval_batches)
        if rank == 0:
            print(f"epoch {epoch}: val loss {val_loss:.4f}, ppl {val_ppl:.2f}")
        if (epoch + 1) % args.save_interval == 0:
            engine.save_checkpoint(args.output_dir, tag=f"epoch{epoch}", client_state={"epoch": epoch})


if __name__ == "__main__":
    main()
