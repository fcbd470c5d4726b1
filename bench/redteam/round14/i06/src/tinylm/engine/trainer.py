import deepspeed

from .loop import LoopMixin


class PretrainTrainer(LoopMixin):
    def __init__(self, model, loader, cfg):
        self.cfg = cfg
        self.loader = loader
        self.engine, self.optimizer, _, self.scheduler = deepspeed.initialize(
            model=model,
            model_parameters=model.parameters(),
            config=cfg["deepspeed"],
        )
