import json

import torch
from torch.utils.data import Dataset

TEMPLATE = "### Instruction:\n{instruction}\n\n### Response:\n"


class InstructionDataset(Dataset):
    def __init__(self, path, tokenizer, max_len=1024):
        self.items = []
        with open(path) as f:
            for row in json.load(f):
                prompt = tokenizer(TEMPLATE.format(**row))["input_ids"]
                answer = tokenizer(row["output"] + tokenizer.eos_token)["input_ids"]
                ids = (prompt + answer)[:max_len]
                self.items.append((ids, ([-100] * len(prompt) + answer)[:max_len]))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate_batch(pad_id):
    def collate(batch):
        width = max(len(ids) for ids, _ in batch)
        input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        attention_mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, (ids, lab) in enumerate(batch):
            input_ids[i, :len(ids)] = torch.tensor(ids)
            labels[i, :len(lab)] = torch.tensor(lab)
            attention_mask[i, :len(ids)] = 1
        return {"input_ids": input_ids, "labels": labels, "attention_mask": attention_mask}

    return collate
