import gpu_pin  # noqa: F401  (must run before torch touches CUDA)

import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from segnet import SegNet
from tiles import SatelliteTiles


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/tiles")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--resume", default="")
    args = parser.parse_args()

    torch.cuda.set_device(0)
    dist.init_process_group("nccl")
    device = torch.device("cuda:0")

    dataset = SatelliteTiles(args.data, split="train")
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4, pin_memory=True)

    model = SegNet(in_channels=4, num_classes=6).to(device)
    if args.resume:
        model.load_state_dict(torch.load(args.resume, map_location="cpu"))
    model = DDP(model, device_ids=[0])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for images, masks in loader:
            images, masks = images.to(device, non_blocking=True), masks.to(device, non_blocking=True)
            loss = F.cross_entropy(model(images), masks)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}")
            torch.save(model.module.state_dict(), f"segnet_{epoch:03d}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
