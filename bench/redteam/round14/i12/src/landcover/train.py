import argparse
import os

import torch
import yaml

from landcover import factory
from landcover.datamodule import PatchDataModule
from landcover.module import LandCoverModule


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/fit.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    torch.set_float32_matmul_precision("high")
    dm = PatchDataModule(**cfg["data"])
    model = LandCoverModule(**cfg["model"])
    trainer = factory.build_trainer(cfg["trainer"], cfg["output_dir"])
    trainer.fit(model, datamodule=dm)
    trainer.save_checkpoint(os.path.join(cfg["output_dir"], "final.ckpt"))
    if trainer.is_global_zero:
        print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path}")


if __name__ == "__main__":
    main()
