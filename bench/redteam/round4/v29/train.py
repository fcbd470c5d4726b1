import torch
from accelerate import Accelerator


def main():
    accelerator = Accelerator(gradient_accumulation_steps=4)
    model = torch.nn.Linear(32, 32)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ds = torch.utils.data.TensorDataset(torch.randn(512, 32))
    dl = torch.utils.data.DataLoader(ds, batch_size=8, shuffle=True)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for (x,) in dl:
        with accelerator.accumulate(model):
            loss = model(x).sum()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
