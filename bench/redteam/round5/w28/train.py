import torch
import lightning as L


def train(fabric):
    model = torch.nn.Linear(64, 64)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = fabric.setup(model, opt)
    for _ in range(100):
        loss = model(torch.randn(16, 64, device=fabric.device)).pow(2).mean()
        fabric.backward(loss)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    fabric = L.Fabric(accelerator="cuda", devices=4, strategy="ddp")
    fabric.launch(train)
