import random

import torch.distributed as dist
from torch.utils.data import IterableDataset, get_worker_info


class RankShardedStream(IterableDataset):
    """An endless stream of which every (rank, DataLoader worker) pair reads a disjoint set of files.

    Files are reshuffled every pass with a seed shared by all ranks, then dealt out round-robin, so
    the ranks never read the same file in one pass and no sampler is needed.
    """

    def __init__(self, files, seed=0):
        self.files = sorted(files)
        self.seed = seed
        self.rank = dist.get_rank() if dist.is_initialized() else 0
        self.world_size = dist.get_world_size() if dist.is_initialized() else 1

    def files_for_pass(self, epoch):
        info = get_worker_info()
        worker, num_workers = (info.id, info.num_workers) if info is not None else (0, 1)
        readers = self.world_size * num_workers
        if len(self.files) < readers:
            raise ValueError(f"{len(self.files)} files cannot feed {readers} readers")
        order = list(self.files)
        random.Random(self.seed + epoch).shuffle(order)
        usable = len(order) - len(order) % readers  # same number of files per reader
        return order[self.rank * num_workers + worker : usable : readers]

    def samples(self, path):
        raise NotImplementedError

    def __iter__(self):
        epoch = 0
        while True:
            for path in self.files_for_pass(epoch):
                yield from self.samples(path)
            epoch += 1
