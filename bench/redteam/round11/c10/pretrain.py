import argparse
import os

import lightning as L
import torch
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder

from mae.callbacks import CheckpointEvery, Throughput
from mae.model import MaskedAutoencoder


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1.5e-4)
    parser.add_argument("--ckpt-every", type=int, default=5000)
    parser.add_argument("--out", default="runs/mae")
    return parser.parse_args()


def main():
    args = parse_args()
    fabric = L.Fabric(accelerator="cuda", devices=4, strategy="fsdp", precision="bf16-mixed",
                      callbacks=[CheckpointEvery(args.ckpt_every, args.out), Throughput(args.batch_size)])
    fabric.launch()
    fabric.seed_everything(0)

    tf = T.Compose([T.RandomResizedCrop(224, scale=(0.2, 1.0)), T.RandomHorizontalFlip(), T.ToTensor(),
                    T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    loader = DataLoader(ImageFolder(args.data, transform=tf), batch_size=args.batch_size, shuffle=True,
                        num_workers=8, pin_memory=True, drop_last=True)
    loader = fabric.setup_dataloaders(loader)

    model = fabric.setup_module(MaskedAutoencoder())
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.05)
    optimizer = fabric.setup_optimizers(optimizer)
    state = {"model": model, "optimizer": optimizer, "step": 0}

    step = 0
    for epoch in range(args.epochs):
        for images, _ in loader:
            loss = model(images)
            fabric.backward(loss)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            state["step"] = step
            fabric.call("on_train_batch_end", fabric=fabric, state=state, step=step)
        fabric.print(f"epoch {epoch}: loss {loss.item():.4f}")
    fabric.save(os.path.join(args.out, "final.ckpt"), state)


if __name__ == "__main__":
    main()
