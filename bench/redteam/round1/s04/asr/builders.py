from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build_train_loader(dataset, batch_size, num_workers=4):
    sampler = DistributedSampler(dataset, shuffle=True, drop_last=True)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=num_workers,
                      collate_fn=dataset.collate)
