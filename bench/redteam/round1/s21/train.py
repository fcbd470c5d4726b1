import argparse
import os

import torch
from accelerate import Accelerator

from proj.data import build_loaders


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--resume", default="")
    args = ap.parse_args()
    accelerator = Accelerator()
    model = torch.nn.Sequential(torch.nn.Linear(32, 256), torch.nn.ReLU(), torch.nn.Linear(256, 4))
    if args.resume:
        model.load_state_dict(torch.load(args.resume, map_location="cpu"))
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    train_loader, val_loader = build_loaders(64)
    model, opt, train_loader, val_loader = accelerator.prepare(model, opt, train_loader, val_loader)
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                preds = accelerator.gather_for_metrics(model(x).argmax(-1))
                correct += (preds == accelerator.gather_for_metrics(y)).sum().item()
        accelerator.print(f"epoch {epoch} acc {correct / len(val_loader.dataset):.3f}")
        accelerator.wait_for_everyone()
        if accelerator.is_main_process:
            os.makedirs("out", exist_ok=True)
            torch.save(accelerator.unwrap_model(model).state_dict(), "out/model.pt")


if __name__ == "__main__":
    main()
