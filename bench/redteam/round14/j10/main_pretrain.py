"""MAE pre-training with DeepSpeed (ZeRO-2, bf16)."""
import argparse
import datetime
import json
import os
import time

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from torch.utils.tensorboard import SummaryWriter
from torchvision import datasets, transforms

import util.misc as misc
from engine_pretrain import train_one_epoch
from models_mae import MaskedAutoencoder


def get_args_parser():
    parser = argparse.ArgumentParser("MAE pre-training", add_help=False)
    parser.add_argument("--batch_size", default=64, type=int, help="per GPU; must match the DeepSpeed config")
    parser.add_argument("--epochs", default=400, type=int)
    parser.add_argument("--input_size", default=224, type=int)
    parser.add_argument("--patch_size", default=16, type=int)
    parser.add_argument("--mask_ratio", default=0.75, type=float)
    parser.add_argument("--embed_dim", default=768, type=int)
    parser.add_argument("--depth", default=12, type=int)
    parser.add_argument("--decoder_dim", default=512, type=int)
    parser.add_argument("--decoder_depth", default=8, type=int)
    parser.add_argument("--data_path", default="/datasets/imagenet", type=str)
    parser.add_argument("--output_dir", default="./output_dir")
    parser.add_argument("--log_dir", default="./output_dir")
    parser.add_argument("--save_freq", default=20, type=int, help="save a checkpoint every N epochs")
    parser.add_argument("--resume", default="", help="DeepSpeed checkpoint folder")
    parser.add_argument("--seed", default=0, type=int)
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--print_freq", default=20, type=int)
    parser.add_argument("--local_rank", default=-1, type=int, help="passed by the deepspeed launcher")
    return parser


def main(args):
    misc.init_distributed_mode(args)
    torch.manual_seed(args.seed + misc.get_rank())

    transform_train = transforms.Compose([
        transforms.RandomResizedCrop(args.input_size, scale=(0.2, 1.0), interpolation=3),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])
    dataset_train = datasets.ImageFolder(os.path.join(args.data_path, "train"), transform=transform_train)
    sampler_train = DistributedSampler(dataset_train, num_replicas=misc.get_world_size(), rank=misc.get_rank(), shuffle=True)
    data_loader_train = DataLoader(dataset_train, sampler=sampler_train, batch_size=args.batch_size,
                                   num_workers=args.num_workers, pin_memory=True, drop_last=True)

    global_rank = misc.get_rank()
    if global_rank == 0 and args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
        log_writer = SummaryWriter(log_dir=args.log_dir)
    else:
        log_writer = None

    model = MaskedAutoencoder(img_size=args.input_size, patch=args.patch_size, dim=args.embed_dim, depth=args.depth,
                              dec_dim=args.decoder_dim, dec_depth=args.decoder_depth, mask_ratio=args.mask_ratio)
    model_engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    print(f"effective batch size: {model_engine.train_batch_size()}")
    args.start_epoch = misc.load_model(args, model_engine)

    print(f"Start training for {args.epochs} epochs")
    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        if args.distributed:
            data_loader_train.sampler.set_epoch(epoch)
        train_stats = train_one_epoch(model_engine, data_loader_train, epoch, log_writer=log_writer,
                                      print_freq=args.print_freq)
        if args.output_dir and (epoch % args.save_freq == 0 or epoch + 1 == args.epochs):
            misc.save_model(args, epoch, model_engine)
        if args.output_dir and misc.is_main_process():
            if log_writer is not None:
                log_writer.flush()
            with open(os.path.join(args.output_dir, "log.txt"), mode="a", encoding="utf-8") as f:
                f.write(json.dumps({**{f"train_{k}": v for k, v in train_stats.items()}, "epoch": epoch}) + "\n")
    print(f"Training time {datetime.timedelta(seconds=int(time.time() - start_time))}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser("MAE pre-training", parents=[get_args_parser()])
    parser = deepspeed.add_config_arguments(parser)
    main(parser.parse_args())
