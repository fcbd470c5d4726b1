"""LightningCLI entry point: `python main.py fit --config configs/base.yaml [--config configs/<exp>.yaml]`."""
from lightning.pytorch.cli import LightningCLI

from vitlab.data import ImageNetData
from vitlab.module import ViTModule


def cli_main():
    LightningCLI(ViTModule, ImageNetData)


if __name__ == "__main__":
    cli_main()
