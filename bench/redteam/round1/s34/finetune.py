import argparse

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resume", default="")
    args = ap.parse_args()
    accelerator = Accelerator()
    model = torch.nn.Linear(32, 2)
    if args.resume:
        model.load_state_dict(torch.load(args.resume))
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    loader = DataLoader(TensorDataset(torch.randn(1000, 32), torch.randint(0, 2, (1000,))), batch_size=32, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for x, y in loader:
        accelerator.backward(torch.nn.functional.cross_entropy(model(x), y))
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
