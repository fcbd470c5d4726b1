import json

import torch
from torch.utils.data import Dataset


class LongDocs(Dataset):
    """Pre-tokenized documents of exactly seq_len tokens (jsonl of {"input_ids": [...]})."""

    def __init__(self, path, seq_len):
        with open(path) as f:
            self.rows = [json.loads(line)["input_ids"][:seq_len] for line in f]
        self.seq_len = seq_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = torch.tensor(self.rows[i])
        labels = ids.clone()
        # Ulysses shards the sequence, so the labels are shifted before sharding.
        shift_labels = torch.cat([labels[1:], torch.tensor([-100])])
        return {"input_ids": ids, "position_ids": torch.arange(len(ids)), "shift_labels": shift_labels}
