from datasets import load_dataset
from torch.utils.data import DataLoader, DistributedSampler
from transformers import default_data_collator


def build_train_loader(tokenizer, cfg):
    raw = load_dataset("text", data_files={"train": cfg["train_file"]})["train"]
    tokenized = raw.map(lambda b: tokenizer(b["text"]), batched=True, remove_columns=["text"])
    block = cfg["block_size"]

    def group(batch):
        ids = sum(batch["input_ids"], [])
        n = (len(ids) // block) * block
        chunks = [ids[i : i + block] for i in range(0, n, block)]
        return {"input_ids": chunks, "attention_mask": [[1] * block for _ in chunks], "labels": chunks}

    lm_data = tokenized.map(group, batched=True, remove_columns=tokenized.column_names)
    sampler = DistributedSampler(lm_data, shuffle=True)
    return DataLoader(lm_data, batch_size=cfg["batch_size"], sampler=sampler,
                      collate_fn=default_data_collator, num_workers=2, pin_memory=True, drop_last=True)
