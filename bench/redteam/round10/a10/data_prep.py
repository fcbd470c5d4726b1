import json
import os

import torch
from torch.utils.data import Dataset


class TokenizedSFT(Dataset):
    def __init__(self, examples):
        self.examples = examples

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]


def build_sft_dataset(path, tokenizer, cache_dir, max_len=2048):
    """Tokenise prompt/response pairs once into cache_dir/tokens.jsonl, then read the cache."""
    cache = os.path.join(cache_dir, "tokens.jsonl")
    if not os.path.exists(cache):
        os.makedirs(cache_dir, exist_ok=True)
        with open(path) as src, open(cache + ".tmp", "w") as dst:
            for line in src:
                ex = json.loads(line)
                prompt = tokenizer(ex["prompt"])["input_ids"]
                answer = tokenizer(ex["response"] + tokenizer.eos_token)["input_ids"]
                ids = (prompt + answer)[:max_len]
                labels = ([-100] * len(prompt) + answer)[:max_len]
                dst.write(json.dumps({"input_ids": ids, "labels": labels}) + "\n")
        os.replace(cache + ".tmp", cache)
    with open(cache) as f:
        return TokenizedSFT([json.loads(line) for line in f])


def collate(pad_id):
    def fn(batch):
        width = max(len(ex["input_ids"]) for ex in batch)
        ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, ex in enumerate(batch):
            n = len(ex["input_ids"])
            ids[i, :n] = torch.tensor(ex["input_ids"])
            labels[i, :n] = torch.tensor(ex["labels"])
            mask[i, :n] = 1
        return {"input_ids": ids, "labels": labels, "attention_mask": mask}

    return fn
