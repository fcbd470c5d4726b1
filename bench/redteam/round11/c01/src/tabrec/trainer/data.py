from torch.utils.data import DataLoader, DistributedSampler

from tabrec.ratings import RatingsDataset


class DataMixin:
    def setup_data(self):
        dc = self.cfg.data
        train_set = RatingsDataset(dc.root, "train")
        val_set = RatingsDataset(dc.root, "val")
        self.num_users, self.num_items = train_set.num_users, train_set.num_items
        self.train_sampler = DistributedSampler(train_set, shuffle=True, seed=self.cfg.train.seed, drop_last=True)
        self.train_loader = DataLoader(train_set, batch_size=dc.batch_size, sampler=self.train_sampler,
                                       num_workers=dc.num_workers, pin_memory=True, persistent_workers=True)
        self.val_loader = DataLoader(val_set, batch_size=dc.batch_size * 4,
                                     sampler=DistributedSampler(val_set, shuffle=False),
                                     num_workers=dc.num_workers, pin_memory=True)
