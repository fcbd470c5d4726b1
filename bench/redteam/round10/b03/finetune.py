"""Summarisation fine-tune with accelerate; the DeepSpeed setup comes from the accelerate config."""
import argparse
import json

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

from modeling import SummaryPairs, build_model_and_tokenizer


def load_rows(path):
    with open(path) as f:
        return [(r["document"], r["summary"]) for r in map(json.loads, f)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--train-file", default="data/train.jsonl")
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args()

    accelerator = Accelerator()
    model, tokenizer = build_model_and_tokenizer()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    loader = DataLoader(SummaryPairs(tokenizer, load_rows(args.train_file)), batch_size=8, shuffle=True, num_workers=2)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    for epoch in range(args.epochs):
        model.train()
        for batch in loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
        accelerator.print(f"epoch {epoch} done, last loss {loss.item():.4f}")
        accelerator.save_state(f"checkpoints/epoch{epoch}")


if __name__ == "__main__":
    main()
