import datetime
import os

import torch.distributed as dist


def setup(backend="nccl"):
    dist.init_process_group(backend=backend, timeout=datetime.timedelta(minutes=20))
    return dist.get_rank(), dist.get_world_size(), int(os.environ["LOCAL_RANK"])


def teardown():
    if dist.is_initialized():
        dist.destroy_process_group()
