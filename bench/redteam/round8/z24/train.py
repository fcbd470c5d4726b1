import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def main():
    accelerator = Accelerator()
    model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(6)])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = DataLoader(TensorDataset(torch.randn(65536, 2048)), batch_size=4, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(2):
        for (x,) in loader:
            with accelerator.accumulate(model):
                loss = model(x).float().pow(2).mean()
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
    accelerator.save_state("state/final")


if __name__ == "__main__":
    main()
