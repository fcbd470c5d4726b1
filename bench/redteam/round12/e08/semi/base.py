import torch.distributed as dist


class BaseTrainer:
    def __init__(self, max_iters, log_every=50):
        self.max_iters = max_iters
        self.log_every = log_every
        self.rank = dist.get_rank()

    def log(self, it, stats):
        if self.rank == 0 and it % self.log_every == 0:
            print(f"iter {it}: " + " ".join(f"{k} {v:.4f}" for k, v in stats.items()), flush=True)

    def train_step(self, it, batch):
        raise NotImplementedError

    def batches(self):
        raise NotImplementedError

    def fit(self):
        for it, batch in zip(range(self.max_iters), self.batches()):
            stats = self.train_step(it, batch)
            self.log(it, stats)
