import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from parallel.groups import dp_rank, dp_world_size, tp_group, tp_rank, tp_src_rank


class TokenWindows(Dataset):
    def __init__(self, path: str, seq_len: int):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return (len(self.tokens) - 1) // self.seq_len

    def __getitem__(self, i):
        s = i * self.seq_len
        return torch.from_numpy(self.tokens[s : s + self.seq_len + 1].astype(np.int64))


def build_train_loader(path: str, seq_len: int, micro_batch: int):
    """Sharded by the data-parallel rank: the TP ranks of one group share the same samples."""
    dataset = TokenWindows(path, seq_len)
    sampler = DistributedSampler(dataset, num_replicas=dp_world_size(), rank=dp_rank(), shuffle=True, seed=0)
    return DataLoader(dataset, batch_size=micro_batch, sampler=sampler, num_workers=2, pin_memory=True,
                      drop_last=True)


def get_batch(data_iter, micro_batch: int, seq_len: int, device):
    """TP rank 0 reads the batch; it is broadcast to the other ranks of its TP group."""
    if tp_rank() == 0:
        window = next(data_iter).to(device, non_blocking=True)
        dist.broadcast(window, src=tp_src_rank(), group=tp_group())
    else:
        window = torch.empty(micro_batch, seq_len + 1, dtype=torch.long, device=device)
        dist.broadcast(window, src=tp_src_rank(), group=tp_group())
    return window[:, :-1], window[:, 1:]
