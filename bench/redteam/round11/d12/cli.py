from lightning.pytorch.cli import LightningCLI

from litlm.data import DialogueData
from litlm.module import CausalLM


def main():
    LightningCLI(CausalLM, DialogueData, save_config_kwargs={"overwrite": True})


if __name__ == "__main__":
    main()
