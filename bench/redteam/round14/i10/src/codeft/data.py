from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorForLanguageModeling


def build_loaders(cfg, tokenizer, accelerator):
    raw = load_dataset("json", data_files={"train": cfg["train_file"], "validation": cfg["val_file"]})
    with accelerator.main_process_first():
        tokenized = raw.map(lambda b: tokenizer(b["content"], truncation=True, max_length=cfg["max_length"]),
                            batched=True, remove_columns=raw["train"].column_names)
    collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)
    train_loader = DataLoader(tokenized["train"], batch_size=cfg["batch_size"], shuffle=True,
                              collate_fn=collator, num_workers=2)
    val_loader = DataLoader(tokenized["validation"], batch_size=cfg["batch_size"], collate_fn=collator)
    return train_loader, val_loader
