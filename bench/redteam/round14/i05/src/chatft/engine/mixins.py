from chatft import checkpoint


class CheckpointMixin:
    def maybe_checkpoint(self, force: bool = False) -> None:
        if force or self.global_step % self.cfg["save_every"] == 0:
            checkpoint.save(self.engine, self.cfg["output_dir"], self.global_step,
                            client_state={"epoch": self.epoch})


class TrainLoopMixin:
    def train(self) -> None:
        self.engine.train()
        for epoch in range(self.cfg["epochs"]):
            self.epoch = epoch
            self.train_loader.sampler.set_epoch(epoch)
            for batch in self.train_loader:
                batch = {k: v.to(self.engine.device) for k, v in batch.items()}
                loss = self.engine(**batch).loss
                self.engine.backward(loss)
                self.engine.step()
                self.global_step += 1
                self.maybe_checkpoint()
        self.maybe_checkpoint(force=True)
