import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, train_set, local_rank, batch_size=32):
        self.model = DDP(model.cuda(local_rank), device_ids=[local_rank])
        self.train_set = train_set
        self.batch_size = batch_size
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)

    def _train_loader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, num_workers=2, drop_last=True)

    def fit(self, epochs):
        loader = self._train_loader()
        for _ in range(epochs):
            for x, y in loader:
                loss = torch.nn.functional.cross_entropy(self.model(x.cuda()), y.cuda())
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
