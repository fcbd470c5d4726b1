import copy
import json

import torch
from torch.utils.data import Dataset

IGNORE_INDEX = -100
PROMPT = ("Below is an instruction that describes a task. Write a response that appropriately completes the "
          "request.\n\n### Instruction:\n{instruction}\n\n### Response:\n")


class SupervisedDataset(Dataset):
    def __init__(self, path, tokenizer, max_len):
        with open(path) as f:
            rows = json.load(f)
        self.items = []
        for r in rows:
            source = PROMPT.format(instruction=r["instruction"])
            full = source + r["output"] + tokenizer.eos_token
            ids = tokenizer(full, max_length=max_len, truncation=True, return_tensors="pt").input_ids[0]
            n_src = len(tokenizer(source, max_length=max_len, truncation=True).input_ids)
            labels = copy.deepcopy(ids)
            labels[:n_src] = IGNORE_INDEX
            self.items.append((ids, labels))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        ids, labels = self.items[i]
        return {"input_ids": ids, "labels": labels}


class Collator:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, batch):
        ids = torch.nn.utils.rnn.pad_sequence([b["input_ids"] for b in batch], batch_first=True,
                                              padding_value=self.pad_id)
        labels = torch.nn.utils.rnn.pad_sequence([b["labels"] for b in batch], batch_first=True,
                                                 padding_value=IGNORE_INDEX)
        return {"input_ids": ids, "labels": labels, "attention_mask": ids.ne(self.pad_id)}
