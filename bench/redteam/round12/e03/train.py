import argparse
import math
import os

import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

from data import build_dataloader
from engine.classification import ClassificationTrainer
from utils.dist import init_distributed_device, is_main_process


def cosine_schedule(base_lr, epochs, warmup):
    return [base_lr * (e + 1) / warmup if e < warmup else
            0.5 * base_lr * (1 + math.cos(math.pi * (e - warmup) / (epochs - warmup))) for e in range(epochs)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--img-size", type=int, default=224)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--warmup-epochs", type=int, default=5)
    parser.add_argument("--output", default="output")
    args = parser.parse_args()

    device = init_distributed_device()
    if is_main_process():
        os.makedirs(args.output, exist_ok=True)
    train_loader = build_dataloader(args, is_train=True, device=device)
    val_loader = build_dataloader(args, is_train=False, device=device)

    model = torchvision.models.get_model(args.model).to(device, memory_format=torch.channels_last)
    model = DDP(model, device_ids=[device.index], find_unused_parameters=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-5, nesterov=True)
    trainer = ClassificationTrainer(model, optimizer, cosine_schedule(args.lr, args.epochs, args.warmup_epochs),
                                    train_loader, val_loader, args.epochs, args.output)
    trainer.fit()


if __name__ == "__main__":
    main()
