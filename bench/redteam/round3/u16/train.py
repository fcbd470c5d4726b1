import torch
from accelerate import Accelerator


def main():
    accelerator = Accelerator()
    model = torch.nn.Linear(512, 512)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, opt = accelerator.prepare(model, opt)
    for _ in range(10):
        loss = model(torch.randn(8, 512, device=accelerator.device)).sum()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
    state = accelerator.get_state_dict(model)
    accelerator.save(state, "model.bin")


if __name__ == "__main__":
    main()
