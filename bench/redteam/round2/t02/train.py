import argparse

import torch
from accelerate import Accelerator, DeepSpeedPlugin
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM

from data import build_dataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="gpt2")
    args = parser.parse_args()
    plugin = DeepSpeedPlugin(zero_stage=2, offload_optimizer_device="cpu", offload_param_device="cpu", gradient_accumulation_steps=2)
    accelerator = Accelerator(deepspeed_plugin=plugin, mixed_precision="bf16")
    model = AutoModelForCausalLM.from_pretrained(args.model_name)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    loader = DataLoader(build_dataset(), batch_size=4, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(2):
        for batch in loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
    accelerator.save_state("out/ckpt")


if __name__ == "__main__":
    main()
