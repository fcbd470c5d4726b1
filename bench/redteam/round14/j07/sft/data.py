"""Instruction-tuning data: JSONL with "instruction", optional "input", and "output"."""
import json

import torch
from torch.utils.data import Dataset

PROMPT = "Below is an instruction that describes a task.\n\n### Instruction:\n{instruction}\n\n{input_block}### Response:\n"
IGNORE_INDEX = -100


class SupervisedJsonl(Dataset):
    def __init__(self, path, tokenizer, max_len):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f if line.strip()]
        self.tok, self.max_len = tokenizer, max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        row = self.rows[idx]
        input_block = f"### Input:\n{row['input']}\n\n" if row.get("input") else ""
        prompt = PROMPT.format(instruction=row["instruction"], input_block=input_block)
        prompt_ids = self.tok(prompt, add_special_tokens=True)["input_ids"]
        answer_ids = self.tok(row["output"] + self.tok.eos_token, add_special_tokens=False)["input_ids"]
        ids = (prompt_ids + answer_ids)[: self.max_len]
        labels = ([IGNORE_INDEX] * len(prompt_ids) + answer_ids)[: self.max_len]
        return torch.tensor(ids), torch.tensor(labels)


def make_collate(pad_id):
    def collate(batch):
        ids, labels = zip(*batch)
        ids = torch.nn.utils.rnn.pad_sequence(ids, batch_first=True, padding_value=pad_id)
        labels = torch.nn.utils.rnn.pad_sequence(labels, batch_first=True, padding_value=IGNORE_INDEX)
        return {"input_ids": ids, "labels": labels, "attention_mask": ids.ne(pad_id)}
    return collate
