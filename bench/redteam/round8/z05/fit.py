import lightning as L
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam
from lightning.fabric.strategies import DeepSpeedStrategy

from model import TinyLM


def main():
    strategy = DeepSpeedStrategy(config="configs/zero2_offload.json")
    fabric = L.Fabric(accelerator="cuda", devices=4, strategy=strategy, precision="bf16-mixed")
    fabric.launch()
    model = TinyLM(vocab=32000, dim=2048, layers=16)
    optimizer = DeepSpeedCPUAdam(model.parameters(), lr=2e-4)
    model, optimizer = fabric.setup(model, optimizer)
    for step in range(500):
        tokens = torch.randint(0, 32000, (4, 512), device=fabric.device)
        loss = model(tokens)
        fabric.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
    fabric.save("ckpt", {"model": model, "optimizer": optimizer})


if __name__ == "__main__":
    main()
