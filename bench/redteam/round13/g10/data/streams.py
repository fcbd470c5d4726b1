import glob
import os

import numpy as np
import torch

from data.base import RankShardedStream
from data.registry import register


@register("c4_tokens")
class TokenShardStream(RankShardedStream):
    def __init__(self, data_dir, seq_len, seed=0):
        super().__init__(glob.glob(os.path.join(data_dir, "*.npy")), seed=seed)
        self.seq_len = seq_len

    def samples(self, path):
        tokens = np.load(path, mmap_mode="r")
        for start in range(0, len(tokens) - self.seq_len - 1, self.seq_len):
            yield torch.from_numpy(tokens[start : start + self.seq_len + 1].astype(np.int64))


@register("c4_tokens_val")
class HeldOutTokens(TokenShardStream):
    def __init__(self, data_dir, seq_len, seed=0):
        super().__init__(os.path.join(data_dir, "val"), seq_len, seed=seed)
