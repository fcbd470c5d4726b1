import deepspeed
import hydra
import torch
from omegaconf import DictConfig


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg: DictConfig):
    model = torch.nn.Linear(256, 256)
    engine, _, _, _ = deepspeed.initialize(
        model=model, model_parameters=model.parameters(), config=cfg.deepspeed.config_path
    )
    for _ in range(cfg.steps):
        loss = engine(torch.randn(8, 256, device=engine.device, dtype=torch.bfloat16)).float().sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
