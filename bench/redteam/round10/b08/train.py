"""DeepLabV3 DDP training, one Slurm task per GPU."""
import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.models.segmentation import deeplabv3_resnet50

from distributed import init_distributed
from segdata import SegPairs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--data", default="/scratch/cityscapes/train")
    args = parser.parse_args()

    local_rank, rank, world_size = init_distributed()
    model = DDP(deeplabv3_resnet50(num_classes=19).cuda(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * world_size, momentum=0.9, weight_decay=1e-4)

    dataset = SegPairs(args.data)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers, pin_memory=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for image, mask in loader:
            image, mask = image.cuda(local_rank, non_blocking=True), mask.cuda(local_rank, non_blocking=True)
            loss = F.cross_entropy(model(image)["out"], mask, ignore_index=255)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if rank == 0:
            torch.save(model.module.state_dict(), f"checkpoints/deeplab_epoch{epoch}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
