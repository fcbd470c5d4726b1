"""Model and data for the summarisation fine-tune (transformers + torch)."""
import torch
from torch.utils.data import Dataset
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

MODEL_NAME = "google/flan-t5-xl"


def build_model_and_tokenizer():
    tokenizer = AutoTokenizer.from_pretrained(MODEL_NAME)
    model = AutoModelForSeq2SeqLM.from_pretrained(MODEL_NAME, torch_dtype=torch.bfloat16)
    return model, tokenizer


class SummaryPairs(Dataset):
    def __init__(self, tokenizer, rows, max_len: int = 512):
        self.rows = rows
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        src, tgt = self.rows[i]
        enc = self.tok(src, max_length=self.max_len, truncation=True, padding="max_length", return_tensors="pt")
        lab = self.tok(tgt, max_length=128, truncation=True, padding="max_length", return_tensors="pt")
        return {"input_ids": enc.input_ids[0], "attention_mask": enc.attention_mask[0], "labels": lab.input_ids[0]}
