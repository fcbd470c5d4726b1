import os

import torch
import torch.distributed as dist
from omegaconf import OmegaConf
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    cfg = OmegaConf.load("conf.yaml")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    ds = TensorDataset(torch.randn(16384, 128), torch.randn(16384, 1))
    loader = DataLoader(ds, batch_size=cfg.batch, sampler=DistributedSampler(ds))
    model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    step = 0
    while step < cfg.steps:
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
    if dist.get_rank() == 0:
        torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
