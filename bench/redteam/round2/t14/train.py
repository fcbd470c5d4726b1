from pathlib import Path

import lightning as L
from lightning.pytorch.strategies import DeepSpeedStrategy

from litmodel import Classifier, DataModule

DS_CONFIG = Path(__file__).parent / "configs" / "zero2.json"


def main():
    trainer = L.Trainer(
        accelerator="gpu",
        devices=8,
        strategy=DeepSpeedStrategy(config=DS_CONFIG),
        precision="16-mixed",
        max_epochs=3,
    )
    trainer.fit(Classifier(), datamodule=DataModule())


if __name__ == "__main__":
    main()
