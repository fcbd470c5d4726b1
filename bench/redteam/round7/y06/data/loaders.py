import os

from torch.utils.data import DataLoader, DistributedSampler

LOADER_DEFAULTS = {"batch_size": 32, "num_workers": os.cpu_count(), "pin_memory": True}


def make_loader(ds, **overrides):
    opts = dict(LOADER_DEFAULTS)
    opts.update(overrides)
    return DataLoader(ds, sampler=DistributedSampler(ds, shuffle=False), **opts)
