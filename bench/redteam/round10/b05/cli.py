"""LightningCLI entry point: `python cli.py fit --config configs/<run>.yaml`."""
from lightning.pytorch.cli import LightningCLI

from lit.data import TokenDataModule
from lit.model import LitLM


def main():
    LightningCLI(LitLM, TokenDataModule, save_config_kwargs={"overwrite": True})


if __name__ == "__main__":
    main()
