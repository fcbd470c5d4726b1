from torch.utils.data import DataLoader, DistributedSampler


def make_train_loader(dataset, batch_size, workers=4):
    sampler = DistributedSampler(dataset, shuffle=True)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=workers, pin_memory=True)


def run_epoch(model, loader, opt, epoch):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = (model(x.cuda(non_blocking=True)) - y.cuda(non_blocking=True)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
