import glob
import os

import pyarrow.parquet as pq
import torch
from torch.utils.data import Dataset


class ClickPairs(Dataset):
    """Pre-tokenised (query, item) pairs with a clicked label, one parquet shard per day."""

    def __init__(self, root, max_len=256):
        tables = [pq.read_table(p) for p in sorted(glob.glob(os.path.join(root, "*.parquet")))]
        self.ids = [row for t in tables for row in t.column("input_ids").to_pylist()]
        self.labels = [y for t in tables for y in t.column("clicked").to_pylist()]
        self.max_len = max_len

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        ids = torch.tensor(self.ids[i][: self.max_len])
        ids = torch.nn.functional.pad(ids, (0, self.max_len - len(ids)))
        return ids, (ids != 0).long(), torch.tensor(float(self.labels[i]))
