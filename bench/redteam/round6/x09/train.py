import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def main():
    accelerator = Accelerator()
    model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(12)])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = DataLoader(TensorDataset(torch.randn(2048, 1024)), batch_size=8, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for (x,) in loader:
        with accelerator.accumulate(model):
            loss = model(x).pow(2).mean()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
