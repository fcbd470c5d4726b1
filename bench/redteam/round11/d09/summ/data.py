from datasets import load_dataset


def cnn_dailymail(tokenizer, split="train", max_source=1024, max_target=128):
    ds = load_dataset("cnn_dailymail", "3.0.0", split=split)

    def encode(batch):
        enc = tokenizer(["summarize: " + a for a in batch["article"]], max_length=max_source,
                        truncation=True, padding="max_length")
        labels = tokenizer(batch["highlights"], max_length=max_target, truncation=True, padding="max_length")
        enc["labels"] = [[t if t != tokenizer.pad_token_id else -100 for t in seq] for seq in labels["input_ids"]]
        return enc

    ds = ds.map(encode, batched=True, remove_columns=ds.column_names, num_proc=8)
    return ds.with_format("torch")
