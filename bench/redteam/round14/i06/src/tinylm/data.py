import glob

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class TokenShards(Dataset):
    def __init__(self, pattern: str, seq_len: int):
        self.shards = [np.memmap(p, dtype=np.uint16, mode="r") for p in sorted(glob.glob(pattern))]
        self.seq_len = seq_len
        self.index = [(s, off) for s, arr in enumerate(self.shards)
                      for off in range(0, len(arr) - seq_len - 1, seq_len)]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        shard, off = self.index[i]
        chunk = torch.from_numpy(self.shards[shard][off : off + self.seq_len + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


def build_loader(data_cfg: dict, micro_batch: int) -> DataLoader:
    dataset = TokenShards(data_cfg["shard_glob"], data_cfg["seq_len"])
    return DataLoader(dataset, batch_size=micro_batch, sampler=DistributedSampler(dataset, shuffle=True),
                      num_workers=4, pin_memory=True, drop_last=True)
