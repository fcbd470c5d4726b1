class SamplerHooks:
    def on_train_epoch_start(self, epoch: int) -> None:
        self.train_loader.sampler.set_epoch(epoch)
        self.model.train()
