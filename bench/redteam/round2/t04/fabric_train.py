import lightning as L
import torch
from torch.utils.data import DataLoader

from model import build_model, build_dataset


def main():
    fabric = L.Fabric(accelerator="cuda", devices=4, num_nodes=1, strategy="ddp", precision="bf16-mixed")
    fabric.launch()
    model = build_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(DataLoader(build_dataset(), batch_size=32, shuffle=True))
    for epoch in range(5):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            fabric.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
    fabric.save("ckpt/last.ckpt", {"model": model, "optimizer": optimizer})


if __name__ == "__main__":
    main()
