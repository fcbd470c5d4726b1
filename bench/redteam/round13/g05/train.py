import argparse
import os

import timm
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms as T

from engine.evaluator import Evaluator
from engine.hooks import HookRegistry, log_train_stats, report_validation
from utils.dist import get_rank, init_distributed


def loaders(root, batch_size):
    norm = T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    train_set = datasets.ImageFolder(os.path.join(root, "train"),
                                     T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    val_set = datasets.ImageFolder(os.path.join(root, "val"),
                                   T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm]))
    train_sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, num_workers=8,
                              pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=8, pin_memory=True)
    return train_loader, train_sampler, val_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--eval-every", type=int, default=5)
    parser.add_argument("--out", default="runs/vit_s16")
    args = parser.parse_args()

    local_rank = init_distributed()
    device = torch.device("cuda", local_rank)
    model = DDP(timm.create_model("vit_small_patch16_224", num_classes=100).to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    train_loader, train_sampler, val_loader = loaders(args.data, args.batch_size)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, args.lr, total_steps=args.epochs * len(train_loader))
    evaluator = Evaluator(val_loader, device)

    hooks = HookRegistry()
    hooks.register("after_step", log_train_stats)
    hooks.register("after_epoch", report_validation)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        for step, (images, targets) in enumerate(train_loader):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(images.to(device)), targets.to(device), label_smoothing=0.1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            hooks.fire("after_step", epoch=epoch, step=step, loss=loss.item(), lr=scheduler.get_last_lr()[0])
        hooks.fire("after_epoch", epoch=epoch, model=model, evaluator=evaluator, out_dir=args.out,
                   eval_every=args.eval_every)

    if get_rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.module.state_dict(), os.path.join(args.out, "vit_s16.pt"))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
