"""Fine-tune an ImageNet ResNet-50 on Food-101 with Hugging Face Accelerate."""
import argparse
import math
import os

import torch
import torchvision
from accelerate import Accelerator
from accelerate.utils import set_seed
from transformers import get_cosine_schedule_with_warmup

from data.loaders import build_dataloaders
from engine import evaluate, train_one_epoch


def parse_args():
    parser = argparse.ArgumentParser(description="Food-101 fine-tuning")
    parser.add_argument("--data_dir", default="/datasets/food-101/images_split")
    parser.add_argument("--arch", default="resnet50")
    parser.add_argument("--num_classes", type=int, default=101)
    parser.add_argument("--image_size", type=int, default=224)
    parser.add_argument("--per_device_batch_size", type=int, default=64)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--weight_decay", type=float, default=0.05)
    parser.add_argument("--warmup_ratio", type=float, default=0.05)
    parser.add_argument("--label_smoothing", type=float, default=0.1)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--num_workers", type=int, default=6)
    parser.add_argument("--log_every", type=int, default=50)
    parser.add_argument("--output_dir", default="runs/food101_r50")
    parser.add_argument("--resume_from", default=None, help="an accelerator.save_state() folder")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps,
                              log_with="tensorboard", project_dir=args.output_dir)
    set_seed(args.seed)
    accelerator.init_trackers("food101", config={k: v for k, v in vars(args).items() if v is not None})

    train_dl, eval_dl = build_dataloaders(args)
    model = getattr(torchvision.models, args.arch)(weights="IMAGENET1K_V2")
    model.fc = torch.nn.Linear(model.fc.in_features, args.num_classes)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    steps_per_epoch = math.ceil(len(train_dl) / (accelerator.num_processes * args.gradient_accumulation_steps))
    total_steps = args.epochs * steps_per_epoch
    lr_scheduler = get_cosine_schedule_with_warmup(optimizer, int(args.warmup_ratio * total_steps) * accelerator.num_processes,
                                                   total_steps * accelerator.num_processes)

    model, optimizer, train_dl, eval_dl, lr_scheduler = accelerator.prepare(model, optimizer, train_dl, eval_dl, lr_scheduler)

    start_epoch = 0
    if args.resume_from:
        accelerator.load_state(args.resume_from)
        start_epoch = int(os.path.basename(os.path.normpath(args.resume_from)).split("_")[-1]) + 1

    best = 0.0
    for epoch in range(start_epoch, args.epochs):
        train_one_epoch(accelerator, model, train_dl, optimizer, lr_scheduler, epoch, args)
        acc = evaluate(accelerator, model, eval_dl)
        accelerator.print(f"epoch {epoch}: top-1 {acc:.2f}")
        accelerator.log({"eval_top1": acc, "epoch": epoch})
        accelerator.save_state(os.path.join(args.output_dir, f"epoch_{epoch}"))
        if acc > best:
            best = acc
            accelerator.wait_for_everyone()
            accelerator.save(accelerator.unwrap_model(model).state_dict(), os.path.join(args.output_dir, "best.pt"))

    accelerator.end_training()


if __name__ == "__main__":
    main()
