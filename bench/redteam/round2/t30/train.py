import torch
from accelerate import Accelerator

from data import make_loader


def main():
    accelerator = Accelerator()
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters())
    loader = make_loader(256)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(10):
        for x, y in loader:
            accelerator.backward(torch.nn.functional.cross_entropy(model(x), y))
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
