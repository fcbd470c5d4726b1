"""nanoGPT-style pretraining with DDP; checkpoints go to --out (a local folder or s3://bucket/prefix)."""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from lm import GPT, CheckpointManager, GPTConfig

parser = argparse.ArgumentParser()
parser.add_argument("--data-dir", default="data/openwebtext")
parser.add_argument("--out", default="out")
parser.add_argument("--batch-size", type=int, default=12)
parser.add_argument("--grad-accum", type=int, default=5)
parser.add_argument("--max-iters", type=int, default=600000)
parser.add_argument("--lr", type=float, default=6e-4)
parser.add_argument("--save-every", type=int, default=2000)
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()

dist.init_process_group(backend="nccl")
ddp_rank = int(os.environ["RANK"])
ddp_local_rank = int(os.environ["LOCAL_RANK"])
ddp_world_size = int(os.environ["WORLD_SIZE"])
device = f"cuda:{ddp_local_rank}"
torch.cuda.set_device(device)
master_process = ddp_rank == 0
torch.manual_seed(1337 + ddp_rank)

cfg = GPTConfig()
train_data = np.memmap(os.path.join(args.data_dir, "train.bin"), dtype=np.uint16, mode="r")


def get_batch():
    ix = torch.randint(len(train_data) - cfg.block_size, (args.batch_size,))
    x = torch.stack([torch.from_numpy(train_data[i:i + cfg.block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(train_data[i + 1:i + 1 + cfg.block_size].astype(np.int64)) for i in ix])
    return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)


def get_lr(it, warmup=2000, decay_iters=600000, min_lr=6e-5):
    if it < warmup:
        return args.lr * (it + 1) / warmup
    ratio = min(1.0, (it - warmup) / (decay_iters - warmup))
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (args.lr - min_lr)


model = GPT(cfg).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1, fused=True)
ckpts = CheckpointManager(args.out)
iter_num = 0
if args.resume:
    uri = ckpts.latest()
    if uri is not None:
        state = ckpts.load(uri)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        iter_num = state["iter_num"] + 1
        del state

model = DDP(model, device_ids=[ddp_local_rank])
raw_model = model.module
X, Y = get_batch()
t0 = time.time()
while iter_num < args.max_iters:
    for group in optimizer.param_groups:
        group["lr"] = get_lr(iter_num)
    for micro_step in range(args.grad_accum):
        model.require_backward_grad_sync = micro_step == args.grad_accum - 1
        with torch.autocast("cuda", dtype=torch.bfloat16):
            _, loss = model(X, Y)
            loss = loss / args.grad_accum
        X, Y = get_batch()
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if master_process and iter_num % 100 == 0:
        print(f"iter {iter_num}: loss {loss.item() * args.grad_accum:.4f}, {time.time() - t0:.1f}s", flush=True)
        t0 = time.time()
    if master_process and iter_num > 0 and iter_num % args.save_every == 0:
        ckpts.save({"model": raw_model.state_dict(), "optimizer": optimizer.state_dict(),
                    "iter_num": iter_num, "config": vars(cfg)}, iter_num)
    iter_num += 1

dist.destroy_process_group()
