import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from data.batches import build_train_loader, get_batch
from models.tp_mlp import TinyLM
from parallel.groups import dp_group, dp_rank, initialize_groups, tp_rank


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/tokens.bin")
    parser.add_argument("--tp-size", type=int, default=2)
    parser.add_argument("--seq-len", type=int, default=512)
    parser.add_argument("--micro-batch", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)
    initialize_groups(args.tp_size)

    torch.manual_seed(1234)  # same seed everywhere: replicated weights and master copies of the shards agree
    model = TinyLM(vocab=50304).to(device)
    model = DDP(model, device_ids=[local_rank], process_group=dp_group())
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)

    loader = build_train_loader(args.data, args.seq_len, args.micro_batch)
    steps_per_epoch = len(loader)
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        data_iter = iter(loader) if tp_rank() == 0 else None
        for step in range(steps_per_epoch):
            inputs, labels = get_batch(data_iter, args.micro_batch, args.seq_len, device)
            logits = model(inputs)
            loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if dist.get_rank() == 0 and step % 50 == 0:
                print(f"epoch {epoch} step {step}/{steps_per_epoch} loss {loss.item():.3f}")

    if dp_rank() == 0:  # one copy of each tensor-parallel shard
        os.makedirs("checkpoints", exist_ok=True)
        torch.save(model.module.state_dict(), f"checkpoints/tp{tp_rank()}.pt")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
