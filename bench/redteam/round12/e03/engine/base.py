import time


class BaseTrainer:
    """Epoch loop with overridable hooks; subclasses implement train_one_epoch/evaluate."""

    def __init__(self, epochs, start_epoch=0):
        self.epochs = epochs
        self.start_epoch = start_epoch
        self.epoch = start_epoch

    def before_epoch(self, epoch):
        pass

    def after_epoch(self, epoch, train_stats, eval_stats):
        pass

    def train_one_epoch(self, epoch):
        raise NotImplementedError

    def evaluate(self):
        raise NotImplementedError

    def fit(self):
        for epoch in range(self.start_epoch, self.epochs):
            self.epoch = epoch
            self.before_epoch(epoch)
            tic = time.time()
            train_stats = self.train_one_epoch(epoch)
            eval_stats = self.evaluate()
            train_stats["epoch_time"] = time.time() - tic
            self.after_epoch(epoch, train_stats, eval_stats)
