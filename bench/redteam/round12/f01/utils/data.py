import json

import torch
from torch.utils.data import Dataset


class PromptAnswerDataset(Dataset):
    """jsonl with {"prompt": ..., "chosen": ...} rows, tokenized up front."""

    def __init__(self, path, tokenizer, max_seq_len):
        self.rows = []
        with open(path) as f:
            for line in f:
                ex = json.loads(line)
                enc = tokenizer(ex["prompt"] + ex["chosen"], max_length=max_seq_len, padding="max_length",
                                truncation=True, return_tensors="pt")
                self.rows.append({k: v.squeeze(0) for k, v in enc.items()})

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        return {"input_ids": row["input_ids"], "attention_mask": row["attention_mask"],
                "labels": row["input_ids"].clone()}


def default_collate(batch):
    return {k: torch.stack([b[k] for b in batch]) for k in batch[0]}
