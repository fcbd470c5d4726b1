"""Review-rating CSVs (columns: text, stars) tokenized for sequence classification."""
from datasets import load_dataset


def load_reviews(train_file, eval_file, tokenizer, max_len, num_proc=8):
    raw = load_dataset("csv", data_files={"train": train_file, "validation": eval_file})

    def tokenize(batch):
        enc = tokenizer(batch["text"], truncation=True, max_length=max_len)
        enc["labels"] = [int(s) - 1 for s in batch["stars"]]
        return enc

    return raw.map(tokenize, batched=True, num_proc=num_proc, remove_columns=raw["train"].column_names)
