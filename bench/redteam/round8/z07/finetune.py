import torch
from accelerate import Accelerator

from data import make_train_loader


def main():
    accelerator = Accelerator(mixed_precision="bf16")
    model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = make_train_loader(batch_size=64)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(3):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        torch.save(accelerator.unwrap_model(model).state_dict(), "clf.pt")


if __name__ == "__main__":
    main()
