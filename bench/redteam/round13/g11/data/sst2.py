"""GLUE SST-2 loaders. The loaders are plain: accelerator.prepare shards them across processes."""
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding

MAX_LEN = 128


def build_loaders(tokenizer, batch_size, accelerator):
    raw = load_dataset("glue", "sst2")

    def encode(batch):
        return tokenizer(batch["sentence"], truncation=True, max_length=MAX_LEN)

    # rank 0 tokenizes and fills the datasets cache, the other ranks then read it
    with accelerator.main_process_first():
        encoded = raw.map(encode, batched=True, remove_columns=["sentence", "idx"])
    encoded = encoded.rename_column("label", "labels")
    collate = DataCollatorWithPadding(tokenizer)
    train_loader = DataLoader(encoded["train"], batch_size=batch_size, shuffle=True, collate_fn=collate)
    val_loader = DataLoader(encoded["validation"], batch_size=256, collate_fn=collate)
    return train_loader, val_loader
