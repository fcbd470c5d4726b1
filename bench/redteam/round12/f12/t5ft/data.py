from datasets import load_dataset


def summarization_set(tokenizer, split="train", max_src=1024, max_tgt=128):
    ds = load_dataset("cnn_dailymail", "3.0.0", split=split)

    def enc(batch):
        src = tokenizer(["summarize: " + a for a in batch["article"]], max_length=max_src, truncation=True,
                        padding="max_length")
        tgt = tokenizer(batch["highlights"], max_length=max_tgt, truncation=True, padding="max_length")
        src["labels"] = [[t if t != tokenizer.pad_token_id else -100 for t in ids] for ids in tgt["input_ids"]]
        return src

    return ds.map(enc, batched=True, remove_columns=ds.column_names).with_format("torch")
