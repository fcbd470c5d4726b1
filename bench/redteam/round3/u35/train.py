import torch
from accelerate import Accelerator


def main():
    accelerator = Accelerator()
    model = torch.nn.Linear(64, 64)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, opt = accelerator.prepare(model, opt)
    for step in range(1000):
        loss = model(torch.randn(8, 64, device=accelerator.device)).sum()
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        if step % 100 == 0 and accelerator.is_main_process:
            accelerator.save_state(f"ckpt/step{step}")


if __name__ == "__main__":
    main()
