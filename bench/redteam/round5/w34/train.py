import torch
import lightning as L
from evaluation import evaluate


def main():
    fabric = L.Fabric()
    fabric.launch()
    model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10))
    opt = torch.optim.AdamW(model.parameters())
    model, opt = fabric.setup(model, opt)
    ds = torch.utils.data.TensorDataset(torch.randn(4096, 256), torch.randint(0, 10, (4096,)))
    tl = fabric.setup_dataloaders(torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True))
    vl = fabric.setup_dataloaders(torch.utils.data.DataLoader(ds, batch_size=256))
    for epoch in range(5):
        for x, y in tl:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            fabric.backward(loss)
            opt.step()
            opt.zero_grad()
        fabric.print(evaluate(fabric, model, vl))


if __name__ == "__main__":
    main()
