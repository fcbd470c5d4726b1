import argparse
import dataclasses

import yaml

from forecast import data, distributed
from forecast.config import TrainConfig
from forecast.model import Forecaster
from forecast.trainer import Trainer


def parse_args():
    parser = argparse.ArgumentParser(description="Train the GRU forecaster")
    parser.add_argument("--data-config", default="configs/data.yaml")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--batch-size", type=int, default=256)
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = dataclasses.replace(TrainConfig(), data_config=args.data_config, epochs=args.epochs,
                              lr=args.lr, batch_size=args.batch_size)
    distributed.init_distributed()
    with open(cfg.data_config) as f:
        data_cfg = yaml.safe_load(f)
    train_set, val_set = data.build_datasets(data_cfg)
    model = Forecaster(**data_cfg["model"])
    Trainer(cfg, model, train_set, val_set).fit()
    distributed.cleanup()


if __name__ == "__main__":
    main()
