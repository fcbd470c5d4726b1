"""End-to-end fine-tuning of an MAE-pretrained ViT for image classification."""
import argparse
import datetime
import json
import os
import time
from pathlib import Path

import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler
from torchvision import datasets, transforms

import util.misc as misc
from engine_finetune import evaluate, train_one_epoch


def get_args_parser():
    parser = argparse.ArgumentParser("MAE fine-tuning for image classification", add_help=False)
    parser.add_argument("--batch_size", default=64, type=int, help="batch size per GPU")
    parser.add_argument("--epochs", default=50, type=int)
    parser.add_argument("--accum_iter", default=1, type=int)
    parser.add_argument("--model", default="vit_b_16", type=str)
    parser.add_argument("--input_size", default=224, type=int)
    parser.add_argument("--clip_grad", type=float, default=None)
    parser.add_argument("--weight_decay", type=float, default=0.05)
    parser.add_argument("--lr", type=float, default=None, help="absolute lr")
    parser.add_argument("--blr", type=float, default=5e-4, help="base lr: lr = blr * total_batch / 256")
    parser.add_argument("--min_lr", type=float, default=1e-6)
    parser.add_argument("--warmup_epochs", type=int, default=5)
    parser.add_argument("--smoothing", type=float, default=0.1)
    parser.add_argument("--finetune", default="", help="MAE checkpoint to start from")
    parser.add_argument("--data_path", default="/datasets/imagenet", type=str)
    parser.add_argument("--nb_classes", default=1000, type=int)
    parser.add_argument("--output_dir", default="./output_dir")
    parser.add_argument("--eval_freq", default=5, type=int, help="validate every N epochs")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", default=0, type=int)
    parser.add_argument("--start_epoch", default=0, type=int)
    parser.add_argument("--num_workers", default=10, type=int)
    parser.add_argument("--print_freq", default=20, type=int)
    parser.add_argument("--dist_url", default="env://")
    return parser


def build_transform(is_train, args):
    normalize = transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    if is_train:
        return transforms.Compose([transforms.RandomResizedCrop(args.input_size, interpolation=3),
                                   transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize])
    return transforms.Compose([transforms.Resize(int(args.input_size * 256 / 224), interpolation=3),
                               transforms.CenterCrop(args.input_size), transforms.ToTensor(), normalize])


def main(args):
    misc.init_distributed_mode(args)
    device = torch.device(args.device)
    torch.manual_seed(args.seed + misc.get_rank())

    dataset_train = datasets.ImageFolder(os.path.join(args.data_path, "train"), build_transform(True, args))
    dataset_val = datasets.ImageFolder(os.path.join(args.data_path, "val"), build_transform(False, args))
    sampler_train = DistributedSampler(dataset_train, num_replicas=misc.get_world_size(), rank=misc.get_rank(), shuffle=True)
    data_loader_train = DataLoader(dataset_train, sampler=sampler_train, batch_size=args.batch_size,
                                   num_workers=args.num_workers, pin_memory=True, drop_last=True)
    # the main process validates on the full split, so the val loader is not sharded
    data_loader_val = DataLoader(dataset_val, sampler=SequentialSampler(dataset_val), batch_size=256,
                                 num_workers=args.num_workers, pin_memory=True)

    model = getattr(torchvision.models, args.model)(num_classes=args.nb_classes)
    if args.finetune:
        checkpoint = torch.load(args.finetune, map_location="cpu")
        state = {k: v for k, v in checkpoint["model"].items() if not k.startswith("heads.")}
        msg = model.load_state_dict(state, strict=False)
        print(f"Loaded pre-trained checkpoint {args.finetune}: {msg}")
    model.to(device)
    model_without_ddp = model
    if args.distributed:
        model = DDP(model, device_ids=[args.gpu])
        model_without_ddp = model.module

    eff_batch_size = args.batch_size * args.accum_iter * misc.get_world_size()
    if args.lr is None:
        args.lr = args.blr * eff_batch_size / 256
    print(f"base lr {args.blr:.2e}, actual lr {args.lr:.2e}, effective batch size {eff_batch_size}")
    optimizer = torch.optim.AdamW(model_without_ddp.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=args.smoothing)

    print(f"Start training for {args.epochs} epochs")
    start_time, max_accuracy = time.time(), 0.0
    for epoch in range(args.start_epoch, args.epochs):
        data_loader_train.sampler.set_epoch(epoch)
        train_stats = train_one_epoch(model, criterion, data_loader_train, optimizer, device, epoch, args)
        log_stats = {**{f"train_{k}": v for k, v in train_stats.items()}, "epoch": epoch}
        last = epoch + 1 == args.epochs
        if misc.is_main_process() and (epoch % args.eval_freq == 0 or last):
            misc.save_on_master({"model": model_without_ddp.state_dict(), "optimizer": optimizer.state_dict(),
                                 "epoch": epoch}, os.path.join(args.output_dir, f"checkpoint-{epoch}.pth"))
            test_stats = evaluate(data_loader_val, model_without_ddp, device)
            max_accuracy = max(max_accuracy, test_stats["acc1"])
            log_stats.update({f"test_{k}": v for k, v in test_stats.items()})
            with open(os.path.join(args.output_dir, "log.txt"), mode="a", encoding="utf-8") as f:
                f.write(json.dumps(log_stats) + "\n")
    total_time = datetime.timedelta(seconds=int(time.time() - start_time))
    print(f"Training time {total_time}, max accuracy {max_accuracy:.2f}%")


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    Path(args.output_dir).mkdir(parents=True, exist_ok=True)
    main(args)
