"""Entry point: `torchrun ... cli.py fit --config configs/<exp>.yaml` (see the Makefile).

Every Trainer, model and data argument comes from the YAML named by --config; the Makefile
picks it with EXP=<name>.
"""
import torch
from lightning.pytorch.cli import LightningCLI

from datamodule import TokenDataModule
from lit_model import LitLlama


def main():
    # TF32 matmuls on Ampere+ for the fp32 parts (norms, loss)
    torch.set_float32_matmul_precision("high")
    LightningCLI(
        LitLlama,
        TokenDataModule,
        save_config_kwargs={"overwrite": True},
    )


if __name__ == "__main__":
    main()
