import argparse
import logging
import os

import torch
import torchvision
import torchvision.transforms as T
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from clsx.engine.trainer import Trainer
from clsx.utils.dist import get_world_size, init_dist, is_main_process


def build_loaders(cfg):
    normalize = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_set = torchvision.datasets.ImageFolder(
        os.path.join(cfg["data_root"], "train"),
        T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), normalize]))
    val_set = torchvision.datasets.ImageFolder(
        os.path.join(cfg["data_root"], "val"),
        T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), normalize]))
    train_loader = DataLoader(train_set, batch_size=cfg["batch_size"], sampler=DistributedSampler(train_set),
                              num_workers=cfg["workers"], pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg["batch_size"], sampler=DistributedSampler(val_set, shuffle=False),
                            num_workers=cfg["workers"], pin_memory=True)
    return train_loader, val_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--work-dir", default="work_dirs/r50")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    local_rank = init_dist()
    device = torch.device("cuda", local_rank)
    if is_main_process():
        os.makedirs(args.work_dir, exist_ok=True)
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    train_loader, val_loader = build_loaders(cfg)
    model = torchvision.models.resnet50().to(device)
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model, device_ids=[local_rank])
    lr = cfg["lr"] * cfg["batch_size"] * get_world_size() / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=cfg["weight_decay"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])

    Trainer(model, optimizer, scheduler, train_loader, val_loader, device, args.work_dir, cfg["epochs"]).fit()


if __name__ == "__main__":
    main()
