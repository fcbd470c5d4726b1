import lightning as L
import torch


def main():
    fabric = L.Fabric(accelerator="cuda", devices=4, strategy="fsdp", precision="bf16-mixed")
    fabric.launch()
    model = torch.nn.Linear(256, 256)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, opt = fabric.setup(model, opt)
    for step in range(1000):
        loss = model(torch.randn(8, 256, device=fabric.device)).sum()
        fabric.backward(loss)
        opt.step()
        opt.zero_grad()
        if step % 200 == 0 and fabric.global_rank == 0:
            fabric.save(f"ckpt/step{step}.ckpt", {"model": model, "optimizer": opt, "step": step})


if __name__ == "__main__":
    main()
