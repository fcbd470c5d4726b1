import argparse
import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import transforms as T

from engine.loops import evaluate, train_one_epoch
from utils.checkpoint import CheckpointManager
from utils.ema import ModelEMA


def build_loaders(root, batch_size):
    norm = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_set = torchvision.datasets.ImageFolder(os.path.join(root, "train"), T.Compose(
        [T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    val_set = torchvision.datasets.ImageFolder(os.path.join(root, "val"), T.Compose(
        [T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm]))
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=DistributedSampler(train_set),
                              num_workers=8, pin_memory=True, drop_last=True, persistent_workers=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=8, pin_memory=True)
    return train_loader, val_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", default="runs/resnet50")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    model = torchvision.models.resnet50().to(device)
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-5)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    ema = ModelEMA(model.module)
    ckpt = CheckpointManager(args.out, model.module, optimizer, scheduler, ema=ema)

    start_epoch = ckpt.resume() if args.resume else 0
    train_loader, val_loader = build_loaders(args.data, args.batch_size)

    for epoch in range(start_epoch, args.epochs):
        train_one_epoch(model, train_loader, optimizer, ema, device, epoch)
        scheduler.step()
        top1 = evaluate(ema.module, val_loader, device)
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: EMA top-1 {top1:.4f}")
            ckpt.save(epoch)
        dist.barrier()

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
