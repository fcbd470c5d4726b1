import deepspeed

from .mixins import CheckpointMixin, EvalMixin


class SummarizationTrainer(EvalMixin, CheckpointMixin):
    def __init__(self, model, train_loader, val_loader, cfg, ds_config):
        self.cfg = cfg
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.global_step = 0
        self.engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                                    config=ds_config)

    def fit(self) -> None:
        self.engine.train()
        for epoch in range(self.cfg["epochs"]):
            self.train_loader.sampler.set_epoch(epoch)
            for batch in self.train_loader:
                batch = {k: v.to(self.engine.device) for k, v in batch.items()}
                loss = self.engine(**batch).loss
                self.engine.backward(loss)
                self.engine.step()
                if self.engine.global_steps != self.global_step:
                    self.global_step = self.engine.global_steps
                    self.on_step_end()
        self.on_train_end()
