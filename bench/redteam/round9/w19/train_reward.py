import torch
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import DummyOptim
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer

BASE = "Qwen/Qwen2.5-1.5B"


def pairs(tokenizer, split):
    ds = load_dataset("Anthropic/hh-rlhf", split=split)

    def enc(ex):
        c = tokenizer(ex["chosen"], truncation=True, max_length=1024, padding="max_length")
        r = tokenizer(ex["rejected"], truncation=True, max_length=1024, padding="max_length")
        return {"c_ids": c["input_ids"], "c_mask": c["attention_mask"],
                "r_ids": r["input_ids"], "r_mask": r["attention_mask"]}

    return ds.map(enc, remove_columns=ds.column_names).with_format("torch")


def main():
    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained(BASE)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForSequenceClassification.from_pretrained(BASE, num_labels=1, torch_dtype=torch.bfloat16)
    model.config.pad_token_id = tokenizer.pad_token_id
    loader = DataLoader(pairs(tokenizer, "train"), batch_size=4, shuffle=True)
    optimizer = DummyOptim(model.parameters())
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    for epoch in range(2):
        for batch in loader:
            with accelerator.accumulate(model):
                chosen = model(input_ids=batch["c_ids"], attention_mask=batch["c_mask"]).logits
                rejected = model(input_ids=batch["r_ids"], attention_mask=batch["r_mask"]).logits
                loss = -F.logsigmoid(chosen - rejected).mean()
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
    accelerator.save_state("out/rm")


if __name__ == "__main__":
    main()
