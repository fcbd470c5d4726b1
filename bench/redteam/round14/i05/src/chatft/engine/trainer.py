import deepspeed

from .mixins import CheckpointMixin, TrainLoopMixin


class SFTTrainer(TrainLoopMixin, CheckpointMixin):
    def __init__(self, model, train_loader, cfg):
        self.cfg = cfg
        self.train_loader = train_loader
        self.global_step = 0
        self.epoch = 0
        params = [p for p in model.parameters() if p.requires_grad]
        self.engine, self.optimizer, _, self.lr_scheduler = deepspeed.initialize(
            model=model, model_parameters=params, config=cfg["deepspeed_config"]
        )
