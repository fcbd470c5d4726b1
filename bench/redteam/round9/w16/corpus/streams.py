import glob
import json

import torch
import torch.distributed as dist
from torch.utils.data import IterableDataset, get_worker_info


class _RankShardedStream(IterableDataset):
    def __init__(self, pattern, seq_len):
        self.files = sorted(glob.glob(pattern))
        self.seq_len = seq_len

    def _my_files(self):
        rank, world = dist.get_rank(), dist.get_world_size()
        files = self.files[rank::world]
        info = get_worker_info()
        if info is not None:
            files = files[info.id::info.num_workers]
        return files

    def _records(self, path):
        raise NotImplementedError

    def __iter__(self):
        buf = []
        for path in self._my_files():
            for ids in self._records(path):
                buf.extend(ids)
                while len(buf) > self.seq_len:
                    yield torch.tensor(buf[: self.seq_len + 1])
                    buf = buf[self.seq_len:]


class JsonlTokens(_RankShardedStream):
    def _records(self, path):
        with open(path) as f:
            for line in f:
                yield json.loads(line)["input_ids"]


class TensorShards(_RankShardedStream):
    def _records(self, path):
        for row in torch.load(path, map_location="cpu", weights_only=True):
            yield row.tolist()
