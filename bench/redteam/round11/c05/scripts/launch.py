"""Launch GPT-lite pretraining on this node: `python scripts/launch.py` (make pretrain).

torchrun is called in-process so that the lab's job wrapper can `from launch import launch`
and retry it on preemption without a shell in between.
"""
from torch.distributed.run import main as torchrun

DS_CONFIG = "configs/zero1_bs512.json"
DATA = "data/openwebtext_train.bin"


def launch():
    torchrun([
        "--standalone",
        "--nproc_per_node", "8",
        "--module", "gptlite.pretrain",
        "--deepspeed_config", DS_CONFIG,
        "--data", DATA,
    ])


if __name__ == "__main__":
    launch()
