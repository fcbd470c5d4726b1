import os

import torch
import torch.distributed as dist


class Runtime:
    """Process placement for torchrun jobs; every entry point calls Runtime.setup() first."""

    @classmethod
    def get_device(cls) -> torch.device:
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank)

    @classmethod
    def setup(cls) -> torch.device:
        device = cls.get_device()
        dist.init_process_group("nccl")
        return device

    @staticmethod
    def is_main() -> bool:
        return dist.get_rank() == 0
