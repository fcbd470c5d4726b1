import deepspeed
import hydra
import torch
from omegaconf import DictConfig, OmegaConf


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg: DictConfig):
    model = torch.nn.Linear(cfg.model.width, cfg.model.width)
    ds_config = OmegaConf.to_container(cfg.deepspeed, resolve=True)
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
    for _ in range(100):
        engine.backward(engine(torch.randn(8, cfg.model.width, device=engine.device)).sum())
        engine.step()


if __name__ == "__main__":
    main()
