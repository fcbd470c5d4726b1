import os

import torch
import torch.multiprocessing as mp

from config import DEFAULT_ADDR, DEFAULT_PORT
from worker import run

if __name__ == "__main__":
    # Respect a port the scheduler or the user exported; fall back to ours only when none is set.
    os.environ["MASTER_ADDR"] = os.environ.get("MASTER_ADDR", DEFAULT_ADDR)
    os.environ["MASTER_PORT"] = os.environ.get("MASTER_PORT", DEFAULT_PORT)
    world_size = torch.cuda.device_count()
    mp.spawn(run, args=(world_size,), nprocs=world_size, join=True)
