import torch
from trainer.accel import build_accelerator


def main():
    accelerator = build_accelerator()
    model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 4096))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ds = torch.utils.data.TensorDataset(torch.randn(4096, 4096))
    dl = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for (x,) in dl:
        with accelerator.accumulate(model):
            loss = model(x).pow(2).mean()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
