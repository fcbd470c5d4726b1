import argparse

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from engine import evaluate
from model import CharTransformer
from utils.dist import init_distributed_mode, is_main_process


class ByteChunks(Dataset):
    def __init__(self, path, context):
        self.data = np.memmap(path, dtype=np.uint8, mode="r")
        self.context = context

    def __len__(self):
        return (len(self.data) - 1) // self.context

    def __getitem__(self, i):
        chunk = torch.from_numpy(self.data[i * self.context:(i + 1) * self.context + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


def batches(loader, sampler):
    epoch = 0
    while True:
        sampler.set_epoch(epoch)
        yield from loader
        epoch += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/enwik8")
    parser.add_argument("--max-steps", type=int, default=20000)
    parser.add_argument("--eval-interval", type=int, default=500)
    args = parser.parse_args()

    local_rank = init_distributed_mode()
    device = torch.device("cuda", local_rank)
    train_set = ByteChunks(f"{args.data}/train.bin", 512)
    sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=2, drop_last=True)
    val_loader = DataLoader(ByteChunks(f"{args.data}/val.bin", 512), batch_size=64, num_workers=2)

    model = DDP(CharTransformer().to(device), device_ids=[local_rank])
    model_without_ddp = model.module
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1)

    for step, (x, y) in zip(range(args.max_steps), batches(train_loader, sampler)):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if is_main_process() and step % args.eval_interval == 0:
            val_loss = evaluate(model_without_ddp, val_loader, device)
            print(f"step {step}: train {loss.item():.4f} val {val_loss:.4f} ({val_loss / np.log(2):.3f} bpc)")
            torch.save(model_without_ddp.state_dict(), "char_transformer.pt")


if __name__ == "__main__":
    main()
