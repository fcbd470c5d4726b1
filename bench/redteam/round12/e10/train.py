import argparse
import os

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, SequentialSampler

import utils
from checkpoint import load_checkpoint


def train_one_epoch(model, criterion, optimizer, loader, device, epoch, scaler):
    model.train()
    logger = utils.MetricLogger()
    for image, target in logger.log_every(loader, 50, header=f"Epoch: [{epoch}]"):
        image, target = image.to(device, non_blocking=True), target.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(image), target)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        logger.update(loss=loss, lr=optimizer.param_groups[0]["lr"])


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.inference_mode():
        for image, target in loader:
            image, target = image.to(device, non_blocking=True), target.to(device, non_blocking=True)
            correct += (model(image).argmax(1) == target).sum().item()
            total += target.numel()
    correct = utils.reduce_across_processes(correct).item()
    total = utils.reduce_across_processes(total).item()
    return 100.0 * correct / total


def get_args_parser():
    parser = argparse.ArgumentParser(description="Classification fine-tuning", add_help=True)
    parser.add_argument("--data-path", default="/datasets/inat21")
    parser.add_argument("--model", default="efficientnet_v2_s")
    parser.add_argument("--weights", default=None, help="checkpoint to start from")
    parser.add_argument("--resume", default="", help="checkpoint to resume from")
    parser.add_argument("-b", "--batch-size", default=64, type=int)
    parser.add_argument("--epochs", default=40, type=int)
    parser.add_argument("--lr", default=0.01, type=float)
    parser.add_argument("-j", "--workers", default=8, type=int)
    parser.add_argument("--output-dir", default="output")
    parser.add_argument("--dist-url", default="env://")
    return parser


def main(args):
    utils.init_distributed_mode(args)
    device = torch.device("cuda")
    if utils.is_main_process():
        os.makedirs(args.output_dir, exist_ok=True)
    train_tf = T.Compose([T.RandomResizedCrop(384), T.RandomHorizontalFlip(), T.ToTensor(),
                          T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    val_tf = T.Compose([T.Resize(384), T.CenterCrop(384), T.ToTensor(),
                        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    dataset = torchvision.datasets.ImageFolder(os.path.join(args.data_path, "train"), train_tf)
    dataset_test = torchvision.datasets.ImageFolder(os.path.join(args.data_path, "val"), val_tf)
    if args.distributed:
        train_sampler = DistributedSampler(dataset)
        test_sampler = DistributedSampler(dataset_test, shuffle=False)
    else:
        train_sampler = RandomSampler(dataset)
        test_sampler = SequentialSampler(dataset_test)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=train_sampler, num_workers=args.workers,
                        pin_memory=True)
    loader_test = DataLoader(dataset_test, batch_size=args.batch_size, sampler=test_sampler,
                             num_workers=args.workers, pin_memory=True)

    model = torchvision.models.get_model(args.model, num_classes=len(dataset.classes))
    if args.weights:
        load_checkpoint(model, args.weights, strict=False)
    model.to(device)
    model_without_ddp = model
    if args.distributed:
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
        model_without_ddp = model.module

    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=2e-5)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    scaler = torch.amp.GradScaler("cuda")
    start_epoch = 0
    if args.resume:
        start_epoch = load_checkpoint(model_without_ddp, args.resume, optimizer, lr_scheduler, scaler)

    for epoch in range(start_epoch, args.epochs):
        if args.distributed:
            train_sampler.set_epoch(epoch)
        train_one_epoch(model, criterion, optimizer, loader, device, epoch, scaler)
        lr_scheduler.step()
        acc = evaluate(model, loader_test, device)
        if utils.is_main_process():
            print(f"epoch {epoch}: acc@1 {acc:.2f}", flush=True)
        utils.save_on_master({"model": model_without_ddp.state_dict(), "optimizer": optimizer.state_dict(),
                              "lr_scheduler": lr_scheduler.state_dict(), "scaler": scaler.state_dict(),
                              "epoch": epoch}, os.path.join(args.output_dir, "checkpoint.pth"))


if __name__ == "__main__":
    main(get_args_parser().parse_args())
