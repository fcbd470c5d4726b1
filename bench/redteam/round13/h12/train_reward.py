"""Pairwise reward model with accelerate + DeepSpeed (config in configs/); see README.md."""
import argparse
import json

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer


class PreferencePairs(Dataset):
    def __init__(self, path, tokenizer, max_len=1024):
        with open(path) as f:
            self.pairs = [json.loads(line) for line in f]
        self.tokenizer = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.pairs)

    def _encode(self, text):
        return self.tokenizer(text, max_length=self.max_len, truncation=True, padding="max_length",
                              return_tensors="pt")

    def __getitem__(self, idx):
        pair = self.pairs[idx]
        chosen, rejected = self._encode(pair["chosen"]), self._encode(pair["rejected"])
        return {"chosen_ids": chosen.input_ids[0], "chosen_mask": chosen.attention_mask[0],
                "rejected_ids": rejected.input_ids[0], "rejected_mask": rejected.attention_mask[0]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--pairs", required=True)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=9e-6)
    parser.add_argument("--batch_size", type=int, default=2)
    args = parser.parse_args()

    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForSequenceClassification.from_pretrained(args.model, num_labels=1,
                                                               torch_dtype=torch.bfloat16)
    model.config.pad_token_id = tokenizer.pad_token_id

    loader = DataLoader(PreferencePairs(args.pairs, tokenizer), batch_size=args.batch_size, shuffle=True,
                        num_workers=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(loader):
            with accelerator.accumulate(model):
                r_chosen = model(input_ids=batch["chosen_ids"], attention_mask=batch["chosen_mask"]).logits
                r_rejected = model(input_ids=batch["rejected_ids"], attention_mask=batch["rejected_mask"]).logits
                loss = -F.logsigmoid(r_chosen - r_rejected).mean()
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
            if step % 50 == 0:
                acc = (r_chosen > r_rejected).float().mean().item()
                accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {acc:.3f}")

    accelerator.wait_for_everyone()
    state = accelerator.get_state_dict(model)
    accelerator.unwrap_model(model).save_pretrained("outputs/rm", is_main_process=accelerator.is_main_process,
                                                    save_function=accelerator.save, state_dict=state)


if __name__ == "__main__":
    main()
