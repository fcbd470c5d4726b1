import json

import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class SFTDataset(Dataset):
    def __init__(self, path, tokenizer, max_length):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        prompt = self.tokenizer.apply_chat_template(row["messages"][:-1], tokenize=False, add_generation_prompt=True)
        answer = row["messages"][-1]["content"] + self.tokenizer.eos_token
        p_ids = self.tokenizer(prompt, add_special_tokens=False)["input_ids"]
        a_ids = self.tokenizer(answer, add_special_tokens=False)["input_ids"]
        ids = (p_ids + a_ids)[: self.max_length]
        labels = ([-100] * len(p_ids) + a_ids)[: self.max_length]
        return torch.tensor(ids), torch.tensor(labels)


def collate(pad_id):
    def fn(batch):
        ids = torch.nn.utils.rnn.pad_sequence([b[0] for b in batch], batch_first=True, padding_value=pad_id)
        labels = torch.nn.utils.rnn.pad_sequence([b[1] for b in batch], batch_first=True, padding_value=-100)
        return {"input_ids": ids, "attention_mask": (ids != pad_id).long(), "labels": labels}
    return fn


def build_loader(cfg, tokenizer):
    dataset = SFTDataset(cfg["train_file"], tokenizer, cfg["max_length"])
    sampler = DistributedSampler(dataset, shuffle=True, seed=42)
    return DataLoader(dataset, batch_size=cfg["micro_batch_size"], sampler=sampler,
                      collate_fn=collate(tokenizer.pad_token_id), num_workers=2)
