import fire
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from utils.dist import setup_distributed


def build_model():
    return torch.nn.Sequential(torch.nn.Linear(128, 128), torch.nn.ReLU(), torch.nn.Linear(128, 2))


def main(epochs: int = 1, lr: float = 1e-3):
    model = build_model().cuda()
    local_rank = setup_distributed()
    model = DDP(model, device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(epochs):
        loss = model(torch.randn(8, 128, device="cuda")).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    fire.Fire(main)
