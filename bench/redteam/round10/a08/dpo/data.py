import json

import torch
from torch.utils.data import Dataset


class PreferencePairs(Dataset):
    """jsonl rows {"prompt", "chosen", "rejected"}, tokenised once."""

    def __init__(self, path, tokenizer, max_len=1024):
        self.rows = []
        with open(path) as f:
            for line in f:
                row = json.loads(line)
                prompt = tokenizer(row["prompt"])["input_ids"]
                chosen = tokenizer(row["chosen"] + tokenizer.eos_token)["input_ids"]
                rejected = tokenizer(row["rejected"] + tokenizer.eos_token)["input_ids"]
                self.rows.append(((prompt + chosen)[:max_len], (prompt + rejected)[:max_len], len(prompt)))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def pair_collate(pad_id):
    """Batch layout: all chosen sequences first, then all rejected ones."""

    def collate(batch):
        seqs = [c for c, _, _ in batch] + [r for _, r, _ in batch]
        prompt_lens = [p for _, _, p in batch] * 2
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
        attention = torch.zeros((len(seqs), width), dtype=torch.long)
        loss_mask = torch.zeros((len(seqs), width), dtype=torch.float)
        for i, (seq, p) in enumerate(zip(seqs, prompt_lens)):
            ids[i, :len(seq)] = torch.tensor(seq)
            attention[i, :len(seq)] = 1
            loss_mask[i, p:len(seq)] = 1.0
        return {"input_ids": ids, "attention_mask": attention, "loss_mask": loss_mask}

    return collate
