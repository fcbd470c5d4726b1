import os

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def export_weights(accelerator, model, out_dir):
    # ZeRO-2 partitions optimizer state and gradients only: every rank holds all of the weights.
    if accelerator.is_main_process:
        os.makedirs(out_dir, exist_ok=True)
        torch.save(accelerator.unwrap_model(model).state_dict(), os.path.join(out_dir, "weights.pt"))


def main():
    accelerator = Accelerator()
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = DataLoader(TensorDataset(torch.randn(16384, 1024)), batch_size=16, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(4):
        for (x,) in loader:
            loss = model(x).pow(2).mean()
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        accelerator.save_state(f"state/epoch{epoch}")
    accelerator.wait_for_everyone()
    export_weights(accelerator, model, "export")


if __name__ == "__main__":
    main()
