import json

import torch
from torch.utils.data import Dataset

PROMPT = "### Question:\n{question}\n\n### Answer:\n"


class SupportSFT(Dataset):
    """JSON lines {"question": ..., "answer": ...}; the loss covers the answer tokens only."""

    def __init__(self, path, tokenizer, max_len):
        with open(path) as f:
            rows = [json.loads(line) for line in f]
        self.examples = []
        for row in rows:
            prompt = tokenizer(PROMPT.format(question=row["question"]))["input_ids"]
            answer = tokenizer(row["answer"] + tokenizer.eos_token, add_special_tokens=False)["input_ids"]
            ids = (prompt + answer)[:max_len]
            labels = ([-100] * len(prompt) + answer)[:max_len]
            self.examples.append((ids, labels))

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        ids, labels = self.examples[i]
        return {"input_ids": ids, "labels": labels}


class PadCollator:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, batch):
        width = max(len(b["input_ids"]) for b in batch)
        ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, b in enumerate(batch):
            n = len(b["input_ids"])
            ids[i, :n] = torch.tensor(b["input_ids"])
            labels[i, :n] = torch.tensor(b["labels"])
            mask[i, :n] = 1
        return {"input_ids": ids, "labels": labels, "attention_mask": mask}
