import torch.distributed as dist
from datasets import load_dataset
from torch.utils.data import DataLoader, DistributedSampler
from transformers import DataCollatorForSeq2Seq


def build_loaders(cfg, tokenizer, local_rank):
    if local_rank != 0:
        dist.barrier()
    raw = load_dataset(cfg["dataset"], cfg["dataset_version"], cache_dir=cfg["cache_dir"])

    def encode(batch):
        enc = tokenizer(["summarize: " + a for a in batch["article"]],
                        max_length=cfg["max_source_length"], truncation=True)
        enc["labels"] = tokenizer(text_target=batch["highlights"], max_length=cfg["max_target_length"],
                                  truncation=True)["input_ids"]
        return enc

    tokenized = raw.map(encode, batched=True, remove_columns=raw["train"].column_names)
    if local_rank == 0:
        dist.barrier()

    collator = DataCollatorForSeq2Seq(tokenizer, padding="longest")
    train_set, val_set = tokenized["train"], tokenized["validation"]
    train_loader = DataLoader(train_set, batch_size=cfg["micro_batch_size"], collate_fn=collator,
                              sampler=DistributedSampler(train_set, shuffle=True), num_workers=2)
    val_loader = DataLoader(val_set, batch_size=cfg["micro_batch_size"], collate_fn=collator,
                            sampler=DistributedSampler(val_set, shuffle=False), num_workers=2)
    return train_loader, val_loader
