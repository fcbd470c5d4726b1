import deepspeed

from molgen import data, dist_utils

from .optim import OptimizerMixin


class OffloadTrainer(OptimizerMixin):
    def __init__(self, model, cfg, ds_config):
        self.cfg = cfg
        optimizer = self.build_optimizer(model)
        self.engine, self.optimizer, _, _ = deepspeed.initialize(model=model, optimizer=optimizer,
                                                                 config=ds_config)
        self.loader = data.build_loader(cfg, self.engine.train_micro_batch_size_per_gpu())

    def fit(self) -> None:
        self.engine.train()
        for epoch in range(self.cfg["epochs"]):
            self.loader.sampler.set_epoch(epoch)
            for step, (ids, labels) in enumerate(self.loader):
                ids, labels = ids.to(self.engine.device), labels.to(self.engine.device)
                loss = self.engine(input_ids=ids, labels=labels).loss
                self.engine.backward(loss)
                self.engine.step()
                if step % 100 == 0 and dist_utils.is_main():
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            self.engine.save_checkpoint("checkpoints/smiles-gpt", tag=f"epoch{epoch}")
