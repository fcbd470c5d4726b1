import json

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset
from transformers import AutoTokenizer


class Dialogues(Dataset):
    def __init__(self, path, tokenizer, max_len):
        with open(path) as f:
            self.rows = [json.loads(line) for line in f]
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        text = self.tok.apply_chat_template(self.rows[i]["messages"], tokenize=False)
        enc = self.tok(text, truncation=True, max_length=self.max_len, padding="max_length", return_tensors="pt")
        ids, mask = enc["input_ids"][0], enc["attention_mask"][0]
        return {"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)}


class DialogueData(L.LightningDataModule):
    def __init__(self, path: str, batch_size: int = 4, max_len: int = 2048,
                 tokenizer_name: str = "Qwen/Qwen2.5-1.5B"):
        super().__init__()
        self.save_hyperparameters()

    def setup(self, stage=None):
        tok = AutoTokenizer.from_pretrained(self.hparams.tokenizer_name)
        self.train_set = Dialogues(self.hparams.path, tok, self.hparams.max_len)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.hparams.batch_size, shuffle=True, num_workers=2,
                          generator=torch.Generator().manual_seed(0))
