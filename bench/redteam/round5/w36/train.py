import torch
from accelerate import Accelerator
from model_utils import build_model


def main():
    accelerator = Accelerator(mixed_precision="bf16")
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(1024, 2048)), batch_size=4)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for (x,) in dl:
        loss = model(x).pow(2).mean()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
