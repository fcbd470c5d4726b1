import fire
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def train(lr: float = 1e-3, device: str = "cuda:0", steps: int = 100):
    dist.init_process_group(backend="nccl")
    model = torch.nn.Linear(16, 16).to(device)
    model = DDP(model)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(steps):
        loss = model(torch.randn(4, 16, device=device)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    fire.Fire(train)
