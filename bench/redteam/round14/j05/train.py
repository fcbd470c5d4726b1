"""R(2+1)D-18 action recognition on Kinetics-400 clips."""
import argparse
import datetime
import os
import time

import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from datasets.clips import DecodedClips
from engine import evaluate, train_one_epoch
from utils import distributed as dist_utils


def get_args_parser():
    parser = argparse.ArgumentParser(description="Video classification training")
    parser.add_argument("--data-path", default="/datasets/kinetics400_decoded", type=str)
    parser.add_argument("--model", default="r2plus1d_18", choices=["r2plus1d_18", "r3d_18", "mc3_18"])
    parser.add_argument("--clip-len", default=16, type=int)
    parser.add_argument("--crop-size", default=112, type=int)
    parser.add_argument("--num-classes", default=400, type=int)
    parser.add_argument("-b", "--batch-size", default=24, type=int)
    parser.add_argument("--epochs", default=45, type=int)
    parser.add_argument("-j", "--workers", default=5, type=int)
    parser.add_argument("--lr", default=0.08, type=float, help="for 8 GPUs x 24 clips")
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--wd", "--weight-decay", default=1e-4, type=float, dest="weight_decay")
    parser.add_argument("--lr-warmup-epochs", default=10, type=int)
    parser.add_argument("--print-freq", default=10, type=int)
    parser.add_argument("--output-dir", default=".", type=str)
    parser.add_argument("--resume", default="", type=str)
    parser.add_argument("--start-epoch", default=0, type=int)
    parser.add_argument("--sync-bn", action="store_true")
    parser.add_argument("--seed", default=42, type=int)
    parser.add_argument("--dist-url", default="env://", type=str)
    return parser


def main(args):
    dist_utils.init_distributed_mode(args)
    device = torch.device("cuda")
    torch.manual_seed(args.seed + dist_utils.get_rank())
    torch.backends.cudnn.benchmark = True

    dataset = DecodedClips(args.data_path, "train", frames=args.clip_len, crop=args.crop_size, train=True)
    dataset_test = DecodedClips(args.data_path, "val", frames=args.clip_len, crop=args.crop_size, train=False)
    train_sampler = DistributedSampler(dataset, shuffle=True)
    test_sampler = DistributedSampler(dataset_test, shuffle=False)
    data_loader = DataLoader(dataset, batch_size=args.batch_size, sampler=train_sampler,
                             num_workers=args.workers, pin_memory=True, drop_last=True)
    data_loader_test = DataLoader(dataset_test, batch_size=args.batch_size, sampler=test_sampler,
                                  num_workers=2, pin_memory=True)

    model = torchvision.models.video.__dict__[args.model](num_classes=args.num_classes)
    if args.sync_bn:
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model.to(device)
    model = DDP(model, device_ids=[args.gpu])
    model_without_ddp = model.module

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    scaler = torch.amp.GradScaler("cuda")
    iters_per_epoch = len(data_loader)
    warmup_iters = iters_per_epoch * args.lr_warmup_epochs
    main_sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=iters_per_epoch * args.epochs - warmup_iters)
    warmup_sched = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.001, total_iters=warmup_iters)
    lr_scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup_sched, main_sched], milestones=[warmup_iters])

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        scaler.load_state_dict(checkpoint["scaler"])
        args.start_epoch = checkpoint["epoch"] + 1

    print("Start training")
    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, data_loader, optimizer, scaler, lr_scheduler, device, epoch, args.print_freq)
        acc = evaluate(model, data_loader_test, device)
        if dist_utils.is_main_process():
            print(f"epoch {epoch}: clip acc@1 {acc:.2f}")
            checkpoint = {"model": model_without_ddp.state_dict(), "optimizer": optimizer.state_dict(),
                          "lr_scheduler": lr_scheduler.state_dict(), "scaler": scaler.state_dict(), "epoch": epoch}
            torch.save(checkpoint, os.path.join(args.output_dir, f"model_{epoch}.pth"))
            torch.save(checkpoint, os.path.join(args.output_dir, "checkpoint.pth"))
    print(f"Training time {datetime.timedelta(seconds=int(time.time() - start_time))}")


if __name__ == "__main__":
    main(get_args_parser().parse_args())
