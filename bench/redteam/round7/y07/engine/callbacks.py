class PrintCallback:
    def on_epoch_start(self, trainer, epoch):
        print("epoch", epoch, "steps", len(trainer.train_loader))
