import torch
import lightning as L
from deepspeed.ops.adam import DeepSpeedCPUAdam
from lightning.fabric.strategies import DeepSpeedStrategy


def main(fabric):
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024))
    opt = DeepSpeedCPUAdam(model.parameters(), lr=1e-4)
    model, opt = fabric.setup(model, opt)
    for _ in range(100):
        x = torch.randn(8, 1024, device=fabric.device)
        loss = model(x).pow(2).mean()
        fabric.backward(loss)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    fabric = L.Fabric(accelerator="cuda", devices=4, precision="bf16-mixed",
                      strategy=DeepSpeedStrategy(stage=2, offload_optimizer=True))
    fabric.launch(main)
