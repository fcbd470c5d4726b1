import lightning as L

from lm.factory import build_trainer
from lm.module import LitLM


def main():
    model = LitLM("EleutherAI/pythia-1.4b")
    trainer = build_trainer(devices=4)
    trainer.fit(model)


if __name__ == "__main__":
    main()
