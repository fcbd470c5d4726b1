import argparse

import torch
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP

from kwspot import comm, data
from kwspot.engine import KWSTrainer
from kwspot.model import KWSNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    local_rank = comm.init()
    model = KWSNet(num_classes=cfg["num_classes"]).cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    trainer = KWSTrainer(model, optimizer, data.build_train_loader(cfg), data.build_eval_loader(cfg), cfg)
    trainer.fit()


if __name__ == "__main__":
    main()
