import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from common.distenv import DistEnv, start


def main():
    env = DistEnv.from_env()
    torch.cuda.set_device(env.rank)
    start(env)
    model = DDP(torch.nn.Linear(2048, 2048).cuda(), device_ids=[torch.cuda.current_device()])
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    ds = TensorDataset(torch.randn(20000, 2048))
    sampler = DistributedSampler(ds, num_replicas=env.world_size, rank=env.rank)
    loader = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=4)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda(non_blocking=True)).pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        if env.is_main:
            print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
