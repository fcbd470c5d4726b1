class SamplerEpochHook:
    def on_epoch_start(self, trainer, epoch):
        trainer.train_loader.sampler.set_epoch(epoch)
