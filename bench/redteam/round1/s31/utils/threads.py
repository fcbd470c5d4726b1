import os

import torch


def configure_cpu_threads():
    """Give each rank its share of the node's cores (CPU Adam runs on them)."""
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    per_rank = max(1, (os.cpu_count() or 1) // local_world)
    torch.set_num_threads(per_rank)
    return per_rank
