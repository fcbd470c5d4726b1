import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader, TensorDataset

from litmodels.callbacks import PeriodicCheckpoint
from litmodels.module import LitLM


def main():
    tokens = torch.load("data/tokens.pt", map_location="cpu")
    loader = DataLoader(TensorDataset(tokens[:, :-1], tokens[:, 1:]), batch_size=8, shuffle=True, num_workers=4)
    trainer = pl.Trainer(
        accelerator="gpu",
        devices=8,
        strategy="deepspeed_stage_2",
        precision="bf16-mixed",
        max_epochs=3,
        callbacks=[PeriodicCheckpoint("ckpts", every_n_steps=2000)],
    )
    trainer.fit(LitLM(), loader)


if __name__ == "__main__":
    main()
