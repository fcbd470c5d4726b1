import argparse

import lightning as L
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint

from data.slices import SliceDataModule
from models.unet import LitUNet
from utils.hardware import pick_batch_size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--devices", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--gib-per-sample", type=float, default=0.35)
    args = parser.parse_args()

    batch_size = pick_batch_size(args.devices, args.gib_per_sample)
    print(f"batch size per GPU: {batch_size}")
    datamodule = SliceDataModule(args.data, batch_size=batch_size)
    model = LitUNet()

    trainer = L.Trainer(
        accelerator="gpu",
        devices=args.devices,
        strategy="ddp_notebook",
        precision="bf16-mixed",
        max_epochs=args.epochs,
        callbacks=[ModelCheckpoint(monitor="val/dice_loss", save_last=True), LearningRateMonitor()],
    )
    trainer.fit(model, datamodule=datamodule)


if __name__ == "__main__":
    main()
