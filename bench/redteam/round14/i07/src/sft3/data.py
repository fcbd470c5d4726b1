import json

import torch
from torch.utils.data import DataLoader, DistributedSampler

PROMPT = "Below is an instruction. Write a response.\n\n### Instruction:\n{instruction}\n\n### Response:\n"


def load_examples(path, tokenizer, max_length):
    examples = []
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            text = PROMPT.format(**row) + row["output"] + tokenizer.eos_token
            ids = tokenizer(text, truncation=True, max_length=max_length)["input_ids"]
            examples.append(torch.tensor(ids))
    return examples


def build_loader(examples, micro_batch, pad_id):
    def collate(batch):
        ids = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=pad_id)
        labels = ids.masked_fill(ids == pad_id, -100)
        return {"input_ids": ids, "attention_mask": (ids != pad_id).long(), "labels": labels}

    return DataLoader(examples, batch_size=micro_batch, sampler=DistributedSampler(examples, shuffle=True),
                      collate_fn=collate, num_workers=2)
