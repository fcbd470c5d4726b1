import argparse

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

from models.net import Net
from models.data import build_train_set


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    args = parser.parse_args()
    accelerator = Accelerator()
    model = Net.from_checkpoint(args.init)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = DataLoader(build_train_set(), batch_size=32, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
    accelerator.save(accelerator.unwrap_model(model).state_dict(), "ckpt/finetuned.pt")


if __name__ == "__main__":
    main()
