import argparse
import torch
from .fabric_setup import make_fabric


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1)
    args = p.parse_args()
    fabric = make_fabric()
    fabric.launch()
    model = torch.nn.Linear(128, 128)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model, opt = fabric.setup(model, opt)
    ds = torch.utils.data.TensorDataset(torch.randn(4096, 128))
    loader = fabric.setup_dataloaders(torch.utils.data.DataLoader(ds, batch_size=32, shuffle=True))
    for epoch in range(args.epochs):
        for (x,) in loader:
            loss = model(x).pow(2).mean()
            fabric.backward(loss)
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
