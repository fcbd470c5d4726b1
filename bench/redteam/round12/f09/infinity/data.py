from datasets import load_dataset
from torch.utils.data import DataLoader


def make_datasets(tokenizer, seq_len=2048):
    raw = load_dataset("json", data_files={"train": "data/domain_train.jsonl", "eval": "data/domain_eval.jsonl"})

    def tok(ex):
        out = tokenizer(ex["text"], max_length=seq_len, truncation=True, padding="max_length")
        out["labels"] = [[t if m else -100 for t, m in zip(ids, mask)]
                         for ids, mask in zip(out["input_ids"], out["attention_mask"])]
        return out

    ds = raw.map(tok, batched=True, remove_columns=["text"]).with_format("torch")
    return ds["train"], ds["eval"]


def eval_loader(eval_set, batch_size):
    return DataLoader(eval_set, batch_size=batch_size, num_workers=2)
