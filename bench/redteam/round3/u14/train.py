import torch
from accelerate import Accelerator


def main():
    accelerator = Accelerator()
    model = torch.nn.Linear(512, 512)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 512)), batch_size=8)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for (x,) in loader:
        with accelerator.accumulate(model):
            loss = model(x).sum()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
