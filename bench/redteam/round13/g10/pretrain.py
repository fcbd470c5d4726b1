import argparse
import math
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from transformers import GPT2Config, GPT2LMHeadModel

from data.registry import build_dataset


def lr_at(step, max_steps, peak, warmup=2000):
    if step < warmup:
        return peak * (step + 1) / warmup
    return 0.1 * peak + 0.45 * peak * (1 + math.cos(math.pi * (step - warmup) / (max_steps - warmup)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="c4_tokens")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--micro-batch", type=int, default=8)
    parser.add_argument("--max-steps", type=int, default=100_000)
    parser.add_argument("--lr", type=float, default=6e-4)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    dataset = build_dataset(args.dataset, data_dir=args.data_dir, seq_len=args.seq_len)
    loader = DataLoader(dataset, batch_size=args.micro_batch, num_workers=4, pin_memory=True, drop_last=True)

    raw_model = GPT2LMHeadModel(GPT2Config(n_positions=args.seq_len, n_layer=24, n_head=16, n_embd=1024)).to(device)
    model = torch.compile(DDP(raw_model, device_ids=[local_rank]))
    optimizer = torch.optim.AdamW(raw_model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1,
                                  fused=True)

    model.train()
    # the stream is endless, so every rank runs exactly max_steps steps
    for step, window in enumerate(loader):
        if step == args.max_steps:
            break
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, args.max_steps, args.lr)
        window = window.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(input_ids=window[:, :-1]).logits
        loss = F.cross_entropy(logits.float().flatten(0, 1), window[:, 1:].flatten())
        loss.backward()
        torch.nn.utils.clip_grad_norm_(raw_model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if dist.get_rank() == 0 and step % 100 == 0:
            print(f"step {step} loss {loss.item():.3f}")

    if dist.get_rank() == 0:
        raw_model.save_pretrained("checkpoints/c4-gpt-350m")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
