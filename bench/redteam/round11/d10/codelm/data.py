import json

import numpy as np
import torch
from torch.utils.data import Dataset


class TokenStream(Dataset):
    def __init__(self, path, seq_len=2048):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return len(self.tokens) // self.seq_len

    def __getitem__(self, i):
        s = self.seq_len
        return torch.from_numpy(self.tokens[i * s:(i + 1) * s].astype(np.int64))


class InstructionData(Dataset):
    def __init__(self, path, tokenizer, max_len=2048):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        prompt = f"### Instruction\n{row['instruction']}\n### Response\n"
        p_ids = self.tok(prompt)["input_ids"]
        ids = (p_ids + self.tok(row["output"])["input_ids"] + [self.tok.eos_token_id])[: self.max_len]
        labels = [-100] * len(p_ids) + ids[len(p_ids):]
        return {"input_ids": ids, "labels": labels[: len(ids)]}
