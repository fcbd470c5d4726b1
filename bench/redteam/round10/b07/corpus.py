"""Packed 4096-token sequences saved with datasets.save_to_disk (for torch / transformers)."""
from datasets import load_from_disk


def load_packed(path: str):
    ds = load_from_disk(path)
    return ds.with_format("torch", columns=["input_ids", "attention_mask", "labels"])
