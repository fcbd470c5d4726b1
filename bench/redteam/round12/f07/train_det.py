import argparse
import os

import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from det.data import coco_detection, collate, to_targets
from det.dist import init_distributed, is_main_process


def get_args():
    p = argparse.ArgumentParser("Faster R-CNN R50-FPN, 1x schedule")
    p.add_argument("--data-root", default="/datasets/coco")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=2, help="images per GPU")
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--output-dir", default="work_dirs/frcnn_r50_1x")
    p.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0)))
    return p.parse_args()


def main():
    args = get_args()
    device = init_distributed(args)

    model = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone="DEFAULT")
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)
    model = DDP(model, device_ids=[args.local_rank])

    dataset = coco_detection(args.data_root, "train")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers,
                        collate_fn=collate, pin_memory=True)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr * args.world_size / 16, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[8, 11], gamma=0.1)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for images, raw in loader:
            images = [im.to(device, non_blocking=True) for im in images]
            losses = model(images, to_targets(raw, device))
            loss = sum(losses.values())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        if is_main_process():
            os.makedirs(args.output_dir, exist_ok=True)
            torch.save(model.module.state_dict(), f"{args.output_dir}/epoch_{epoch}.pth")


if __name__ == "__main__":
    main()
