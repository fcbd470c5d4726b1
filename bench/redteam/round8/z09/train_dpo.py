import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM

from rlhf import DPOLearner


def collate(rows):
    return {k: torch.stack([r[k] for r in rows]) for k in ("chosen", "rejected")}


def main():
    accelerator = Accelerator(mixed_precision="bf16")
    policy = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
    ref_model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B").to(accelerator.device)
    pairs = [{"chosen": torch.randint(0, 1000, (256,)), "rejected": torch.randint(0, 1000, (256,))} for _ in range(2048)]
    loader = DataLoader(pairs, batch_size=4, shuffle=True, collate_fn=collate)
    optimizer = torch.optim.AdamW(policy.parameters(), lr=5e-7)
    policy, optimizer, loader = accelerator.prepare(policy, optimizer, loader)
    learner = DPOLearner(policy, ref_model, optimizer, accelerator)
    for epoch in range(2):
        for batch in loader:
            loss = learner.step(batch)
        accelerator.print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
