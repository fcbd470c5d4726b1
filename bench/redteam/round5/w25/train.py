import torch
import lightning as L
from lightning.fabric.strategies import DeepSpeedStrategy
from deepspeed.ops.adam import DeepSpeedCPUAdam


def main():
    fabric = L.Fabric(accelerator="cuda", devices=4, strategy=DeepSpeedStrategy(config="configs/ds.json"))
    fabric.launch()
    model = torch.nn.Linear(2048, 2048)
    opt = DeepSpeedCPUAdam(model.parameters(), lr=1e-4)
    model, opt = fabric.setup(model, opt)
    for step in range(1, 1001):
        x = torch.randn(4, 2048, device=fabric.device, dtype=torch.bfloat16)
        fabric.backward(model(x).float().pow(2).mean())
        opt.step()
        opt.zero_grad()
        if step % 250 == 0:
            fabric.save(f"ckpt/step{step}", {"model": model, "optimizer": opt, "step": step})
    if fabric.global_rank == 0:
        print("done")


if __name__ == "__main__":
    main()
