from lightning.pytorch.cli import LightningCLI

from lm import TinyGPT, Tokens

if __name__ == "__main__":
    LightningCLI(TinyGPT, Tokens)
