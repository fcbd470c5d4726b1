import argparse
import datetime
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, SequentialSampler
from torchvision import datasets, transforms

from engine import evaluate, train_one_epoch
from utils import dist as dist_utils

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def get_args_parser():
    parser = argparse.ArgumentParser("ViT fine-tuning", add_help=False)
    parser.add_argument("--batch_size", default=64, type=int, help="per-GPU batch size")
    parser.add_argument("--epochs", default=100, type=int)
    parser.add_argument("--model", default="vit_b_16", choices=["vit_b_16", "vit_b_32", "vit_l_16"])
    parser.add_argument("--input_size", default=224, type=int)
    parser.add_argument("--lr", default=5e-4, type=float, help="lr for a global batch of 512")
    parser.add_argument("--min_lr", default=1e-6, type=float)
    parser.add_argument("--weight_decay", default=0.05, type=float)
    parser.add_argument("--warmup_epochs", default=5, type=int)
    parser.add_argument("--clip_grad", default=None, type=float)
    parser.add_argument("--smoothing", default=0.1, type=float)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--data_path", default="/datasets/imagenet", type=str)
    parser.add_argument("--nb_classes", default=1000, type=int)
    parser.add_argument("--output_dir", default="", help="where to save, empty for no saving")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", default=0, type=int)
    parser.add_argument("--resume", default="")
    parser.add_argument("--start_epoch", default=0, type=int)
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--print_freq", default=50, type=int)
    parser.add_argument("--dist_url", default="env://")
    parser.add_argument("--dist_timeout", default=30, type=int, help="minutes")
    return parser


def build_dataset(is_train, args):
    if is_train:
        tf = [transforms.RandomResizedCrop(args.input_size), transforms.RandomHorizontalFlip()]
    else:
        tf = [transforms.Resize(int(args.input_size / 0.875)), transforms.CenterCrop(args.input_size)]
    tf = transforms.Compose(tf + [transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    return datasets.ImageFolder(os.path.join(args.data_path, "train" if is_train else "val"), transform=tf)


def cosine_schedule(base, final, epochs, steps_per_epoch, warmup_epochs):
    warmup = np.linspace(0, base, warmup_epochs * steps_per_epoch)
    iters = np.arange(epochs * steps_per_epoch - len(warmup))
    return np.concatenate((warmup, final + 0.5 * (base - final) * (1 + np.cos(np.pi * iters / len(iters)))))


def main(args):
    dist_utils.init_distributed_mode(args)
    device = torch.device(args.device)
    torch.manual_seed(args.seed + dist_utils.get_rank())

    dataset_train, dataset_val = build_dataset(True, args), build_dataset(False, args)
    if args.distributed:
        sampler_train = DistributedSampler(dataset_train, num_replicas=args.world_size, rank=args.rank, shuffle=True)
        sampler_val = DistributedSampler(dataset_val, num_replicas=args.world_size, rank=args.rank, shuffle=False)
    else:
        sampler_train, sampler_val = RandomSampler(dataset_train), SequentialSampler(dataset_val)
    data_loader_train = DataLoader(dataset_train, sampler=sampler_train, batch_size=args.batch_size,
                                   num_workers=args.num_workers, pin_memory=True, drop_last=True)
    data_loader_val = DataLoader(dataset_val, sampler=sampler_val, batch_size=2 * args.batch_size,
                                 num_workers=2, pin_memory=True)

    model = getattr(torchvision.models, args.model)(num_classes=args.nb_classes)
    model.to(device)
    model_without_ddp = model
    if args.distributed:
        model = DDP(model, device_ids=[args.gpu])
        model_without_ddp = model.module

    args.lr = args.lr * args.batch_size * dist_utils.get_world_size() / 512
    optimizer = torch.optim.AdamW(model_without_ddp.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=args.smoothing)
    lr_schedule = cosine_schedule(args.lr, args.min_lr, args.epochs, len(data_loader_train), args.warmup_epochs)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        args.start_epoch = checkpoint["epoch"] + 1

    print(f"Start training for {args.epochs} epochs")
    start_time, max_accuracy = time.time(), 0.0
    for epoch in range(args.start_epoch, args.epochs):
        if args.distributed:
            data_loader_train.sampler.set_epoch(epoch)
        train_stats = train_one_epoch(model, criterion, data_loader_train, optimizer, device, epoch, args, lr_schedule)
        if args.output_dir:
            dist_utils.save_on_master({"model": model_without_ddp.state_dict(), "optimizer": optimizer.state_dict(),
                                       "epoch": epoch, "args": vars(args)}, Path(args.output_dir) / "checkpoint.pth")
        test_stats = evaluate(model, data_loader_val, device)
        max_accuracy = max(max_accuracy, test_stats["acc1"])
        if args.output_dir and dist_utils.is_main_process():
            log = {"epoch": epoch, **{f"train_{k}": v for k, v in train_stats.items()},
                   **{f"test_{k}": v for k, v in test_stats.items()}}
            with (Path(args.output_dir) / "log.txt").open("a") as f:
                f.write(json.dumps(log) + "\n")
    print(f"Training time {datetime.timedelta(seconds=int(time.time() - start_time))}, max acc@1 {max_accuracy:.2f}%")


if __name__ == "__main__":
    args = argparse.ArgumentParser("ViT fine-tuning", parents=[get_args_parser()]).parse_args()
    if args.output_dir:
        Path(args.output_dir).mkdir(parents=True, exist_ok=True)
    main(args)
