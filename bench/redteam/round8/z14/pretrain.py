import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset

from settings import FabricSettings


def main():
    s = FabricSettings()
    fabric = L.Fabric(accelerator=s.accelerator, devices=s.devices, num_nodes=s.num_nodes,
                      strategy=s.strategy, precision=s.precision)
    fabric.launch()
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 256))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(DataLoader(TensorDataset(torch.randn(10000, 256)), batch_size=64, shuffle=True))
    for epoch in range(5):
        for (x,) in loader:
            loss = model(x).pow(2).mean()
            fabric.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
