"""Continued pretraining of a 13B causal LM with accelerate + DeepSpeed."""
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, default_data_collator

from infra.accel import build_accelerator
from corpus import load_packed


def main():
    accelerator = build_accelerator(grad_accum=8)
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf", torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, weight_decay=0.1)
    loader = DataLoader(load_packed("data/packed_4096"), batch_size=1, shuffle=True, collate_fn=default_data_collator)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    model.train()
    for step, batch in enumerate(loader):
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        if step % 100 == 0:
            accelerator.print(f"step {step} loss {loss.item():.4f}")
        if step and step % 2000 == 0:
            accelerator.save_state(f"checkpoints/step{step}")


if __name__ == "__main__":
    main()
