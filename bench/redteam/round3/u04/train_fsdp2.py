import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(256, 256)
        self.l2 = torch.nn.Linear(256, 256)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def main():
    dist.init_process_group("nccl")
    model = torch.nn.Sequential(*[Block() for _ in range(4)]).cuda()
    for blk in model:
        fully_shard(blk)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(10):
        loss = model(torch.randn(2, 256, device="cuda")).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
