import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from vision import CropNet, normalize_batch, random_flip


class CropTiles(Dataset):
    """uint8 CHW crops in one memory-mapped array."""

    def __init__(self, root):
        self.images = np.load(os.path.join(root, "images.npy"), mmap_mode="r")
        self.labels = np.load(os.path.join(root, "labels.npy"))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(np.ascontiguousarray(self.images[i])), int(self.labels[i])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    dataset = CropTiles(args.data)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=6, pin_memory=True, drop_last=True)
    model = DDP(CropNet(num_classes=24).to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            images = random_flip(normalize_batch(images.to(device, non_blocking=True)))
            loss = F.cross_entropy(model(images), labels.to(device, non_blocking=True))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}")
            torch.save(model.module.state_dict(), f"cropnet_{epoch:03d}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
