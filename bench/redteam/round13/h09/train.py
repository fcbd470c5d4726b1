"""DeepLabV3 on Cityscapes with DDP, one srun task per GPU (slurm/seg_ddp.sbatch)."""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.models.segmentation import deeplabv3_resnet50

from data import Cityscapes


def setup():
    rank = int(os.environ["SLURM_PROCID"])
    world_size = int(os.environ["SLURM_NTASKS"])
    # torchrun sets LOCAL_RANK; under srun --gpus-per-task=1 each task sees only its own GPU
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    return rank, local_rank


@torch.no_grad()
def evaluate(model, loader, device, num_classes=19):
    model.eval()
    inter = torch.zeros(num_classes, device=device)
    union = torch.zeros(num_classes, device=device)
    for img, mask in loader:
        img, mask = img.to(device), mask.to(device)
        pred = model(img)["out"].argmax(1)
        valid = mask != 255
        for c in range(num_classes):
            p, t = (pred == c) & valid, (mask == c) & valid
            inter[c] += (p & t).sum()
            union[c] += (p | t).sum()
    dist.all_reduce(inter)
    dist.all_reduce(union)
    return (inter / union.clamp(min=1)).mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=120)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--eval-only", action="store_true")
    parser.add_argument("--resume", default=None)
    args = parser.parse_args()

    rank, local_rank = setup()
    device = torch.device("cuda", local_rank)
    model = deeplabv3_resnet50(num_classes=19).to(device)
    if args.resume:
        model.load_state_dict(torch.load(args.resume, map_location="cpu"))
    model = DDP(model, device_ids=[local_rank])

    val_set = Cityscapes(args.data, "val")
    val_loader = DataLoader(val_set, batch_size=1, sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=args.workers)
    if args.eval_only:
        miou = evaluate(model, val_loader, device)
        if rank == 0:
            print(f"val mIoU {miou:.4f}")
        dist.destroy_process_group()
        return

    train_set = Cityscapes(args.data, "train")
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers,
                        pin_memory=True, drop_last=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    os.makedirs("checkpoints", exist_ok=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for img, mask in loader:
            img, mask = img.to(device, non_blocking=True), mask.to(device, non_blocking=True)
            loss = F.cross_entropy(model(img)["out"], mask, ignore_index=255)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if rank == 0:
            torch.save(model.module.state_dict(), "checkpoints/last.pt")
    miou = evaluate(model, val_loader, device)
    if rank == 0:
        print(f"final val mIoU {miou:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
