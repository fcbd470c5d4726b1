from lightning.pytorch.cli import LightningCLI
from lightning.pytorch.demos.boring_classes import BoringDataModule

from model import Classifier


def cli_main():
    LightningCLI(Classifier, BoringDataModule)


if __name__ == "__main__":
    cli_main()
