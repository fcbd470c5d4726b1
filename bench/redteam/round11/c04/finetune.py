import argparse
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from transformers import AutoModelForCausalLM, AutoTokenizer

from lmft.autobatch import fit_micro_batch
from lmft.corpus import tokenize_corpus

GPT2_PARAMS = 124_000_000


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="gpt2")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--gpus", type=int, default=0, help="0: every visible GPU")
    parser.add_argument("--seq-len", type=int, default=1024)
    parser.add_argument("--max-micro-batch", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--out", default="runs/gpt2")
    return parser.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, world_size, blocks, micro_batch, args):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    device = torch.device("cuda", rank)

    dataset = TensorDataset(blocks)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=micro_batch, sampler=sampler, num_workers=2, pin_memory=True)

    model = AutoModelForCausalLM.from_pretrained(args.model).to(device)
    model = DDP(model, device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for step, (ids,) in enumerate(loader):
            ids = ids.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if rank == 0 and step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f}", flush=True)
    if rank == 0:
        model.module.save_pretrained(args.out)
    dist.destroy_process_group()


def main():
    args = parse_args()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    # (N, seq_len) int64 on the CPU; a few GB for the full corpus
    blocks = tokenize_corpus(args.corpus, tokenizer, args.seq_len)
    world_size = args.gpus or torch.cuda.device_count()
    micro_batch = min(args.max_micro_batch, fit_micro_batch(args.seq_len, GPT2_PARAMS))
    print(f"{len(blocks)} blocks of {args.seq_len} tokens, micro-batch {micro_batch} on {world_size} GPUs")

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(free_port()))
    # fork, not spawn: the workers share `blocks` copy-on-write instead of each
    # unpickling its own copy of the tokenized corpus
    mp.start_processes(worker, args=(world_size, blocks, micro_batch, args), nprocs=world_size,
                       start_method="fork")


if __name__ == "__main__":
    main()
