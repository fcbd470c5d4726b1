import argparse

import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP

from imgcls import comm, config, data
from imgcls.engine import ClassifierTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    cfg = config.load(args.config)

    local_rank = comm.init_distributed()
    model = torchvision.models.get_model(cfg["arch"], num_classes=cfg["num_classes"])
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).cuda()
    model = DDP(model, device_ids=[local_rank])

    optim_cfg = cfg["optim"]
    optimizer = torch.optim.SGD(model.parameters(), lr=optim_cfg["lr"], momentum=optim_cfg["momentum"],
                                weight_decay=optim_cfg["weight_decay"], nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
    train_loader, val_loader = data.build_loaders(cfg["data"])

    trainer = ClassifierTrainer(model, optimizer, scheduler, train_loader, val_loader, cfg)
    trainer.fit()


if __name__ == "__main__":
    main()
