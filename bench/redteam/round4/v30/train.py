import torch
from accelerate import Accelerator
from models.build import build_model


def main():
    accelerator = Accelerator()
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ds = torch.utils.data.TensorDataset(torch.randn(512, 32))
    dl = torch.utils.data.DataLoader(ds, batch_size=8, shuffle=True)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for (x,) in dl:
        loss = model(x).sum()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
