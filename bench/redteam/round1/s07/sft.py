import argparse

import torch
from accelerate import Accelerator
from datasets import load_from_disk
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, default_data_collator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--lr", type=float, default=1e-5)
    args = parser.parse_args()

    accelerator = Accelerator()
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    dataset = load_from_disk("data/sft_tokenized")
    loader = DataLoader(dataset, batch_size=2, shuffle=True, collate_fn=default_data_collator)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    model.train()
    for epoch in range(3):
        for batch in loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
    accelerator.wait_for_everyone()
    accelerator.save_state("out/final")


if __name__ == "__main__":
    main()
