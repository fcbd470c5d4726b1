import os

import deepspeed
import torch


def init() -> None:
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    deepspeed.init_distributed()
