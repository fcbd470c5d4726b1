"""DeepLabV3-ResNet50 on Pascal VOC 2012, launched with srun (one task per GPU) or torchrun."""
import argparse
import datetime
import os
import time

import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, SequentialSampler

import util.misc as utils
from datasets.voc import build_voc
from engine import evaluate, train_one_epoch


def get_args_parser():
    parser = argparse.ArgumentParser("DeepLabV3 training", add_help=False)
    parser.add_argument("--data_path", default="/datasets/voc", type=str)
    parser.add_argument("--backbone", default="resnet50", choices=["resnet50", "resnet101"])
    parser.add_argument("--num_classes", default=21, type=int)
    parser.add_argument("--crop_size", default=513, type=int)
    parser.add_argument("--batch_size", default=4, type=int, help="images per GPU")
    parser.add_argument("--epochs", default=50, type=int)
    parser.add_argument("--lr", default=0.02, type=float)
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--weight_decay", default=1e-4, type=float)
    parser.add_argument("--sync_bn", action="store_true")
    parser.add_argument("--aux_weight", default=0.5, type=float)
    parser.add_argument("--num_workers", default=6, type=int)
    parser.add_argument("--output_dir", default="", help="empty for no saving")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", default=42, type=int)
    parser.add_argument("--resume", default="")
    parser.add_argument("--start_epoch", default=0, type=int)
    parser.add_argument("--print_freq", default=20, type=int)
    parser.add_argument("--dist_url", default="env://", help="url used to set up distributed training")
    return parser


def main(args):
    utils.init_distributed_mode(args)
    device = torch.device(args.device)
    torch.manual_seed(args.seed + utils.get_rank())

    dataset_train = build_voc(args.data_path, "train", args.crop_size)
    dataset_val = build_voc(args.data_path, "val", args.crop_size)
    if args.distributed:
        sampler_train = DistributedSampler(dataset_train)
        sampler_val = DistributedSampler(dataset_val, shuffle=False)
    else:
        sampler_train, sampler_val = RandomSampler(dataset_train), SequentialSampler(dataset_val)
    data_loader_train = DataLoader(dataset_train, batch_size=args.batch_size, sampler=sampler_train,
                                   num_workers=args.num_workers, pin_memory=True, drop_last=True)
    data_loader_val = DataLoader(dataset_val, batch_size=1, sampler=sampler_val, num_workers=2)

    builder = getattr(torchvision.models.segmentation, f"deeplabv3_{args.backbone}")
    model = builder(weights=None, weights_backbone="DEFAULT", num_classes=args.num_classes, aux_loss=True)
    if args.distributed and args.sync_bn:
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model.to(device)
    model_without_ddp = model
    if args.distributed:
        model = DDP(model, device_ids=[args.gpu])
        model_without_ddp = model.module

    params = [{"params": [p for p in model_without_ddp.backbone.parameters() if p.requires_grad]},
              {"params": [p for p in model_without_ddp.classifier.parameters() if p.requires_grad]},
              {"params": [p for p in model_without_ddp.aux_classifier.parameters() if p.requires_grad], "lr": args.lr * 10}]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    total_iters = len(data_loader_train) * args.epochs
    lr_scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=total_iters, power=0.9)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        args.start_epoch = checkpoint["epoch"] + 1

    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        train_one_epoch(model, data_loader_train, optimizer, lr_scheduler, device, epoch, args.print_freq)
        miou = evaluate(model, data_loader_val, device, args.num_classes)
        print(f"epoch {epoch}: mIoU {miou:.2f}")
        if args.output_dir:
            utils.save_on_master({"model": model_without_ddp.state_dict(), "optimizer": optimizer.state_dict(),
                                  "lr_scheduler": lr_scheduler.state_dict(), "epoch": epoch},
                                 os.path.join(args.output_dir, "checkpoint.pth"))
    print(f"Training time {datetime.timedelta(seconds=int(time.time() - start_time))}")


if __name__ == "__main__":
    args = argparse.ArgumentParser("DeepLabV3", parents=[get_args_parser()]).parse_args()
    if args.output_dir:
        os.makedirs(args.output_dir, exist_ok=True)
    main(args)
