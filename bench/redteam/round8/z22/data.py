import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def build_loader(dims, batch_size):
    # The 4 ranks of a tensor-parallel group compute one model replica: they must read the same batch,
    # so the sampler splits the data by the data-parallel index only.
    ds = TensorDataset(torch.randint(0, 32000, (100000, 1024)))
    sampler = DistributedSampler(ds, num_replicas=dims.dp_size, rank=dims.dp_rank, shuffle=True)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=2), sampler
