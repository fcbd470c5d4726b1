import os

import torch.multiprocessing as mp


def _entry(rank, fn, world):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    fn(rank, world)


def run_distributed(fn, nprocs):
    mp.spawn(_entry, args=(fn, nprocs), nprocs=nprocs, join=True)
