import argparse

import torch
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP
from torchvision.models.segmentation import deeplabv3_resnet50

from segnet import data, distributed
from segnet.engine import SegTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    device = distributed.setup()
    model = deeplabv3_resnet50(weights=None, weights_backbone=None, num_classes=cfg["num_classes"])
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)
    model = DDP(model, device_ids=[device.index])
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9, weight_decay=cfg["weight_decay"])
    train_loader, val_loader = data.build_loaders(cfg["data"])

    SegTrainer(model, optimizer, train_loader, val_loader, cfg, device).fit()


if __name__ == "__main__":
    main()
