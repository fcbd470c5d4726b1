import os

import torch


def configure_threads() -> int:
    """Give each local rank its share of the host cores (torchrun exports OMP_NUM_THREADS=1)."""
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    threads = max(1, len(os.sched_getaffinity(0)) // local_world)
    torch.set_num_threads(threads)
    return threads
