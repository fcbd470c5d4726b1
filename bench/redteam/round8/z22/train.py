import torch
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

from data import build_loader
from parallel import build_mesh


class MLP(torch.nn.Module):
    def __init__(self, dim=4096):
        super().__init__()
        self.embed = torch.nn.Embedding(32000, dim)
        self.up = torch.nn.Linear(dim, 4 * dim)
        self.down = torch.nn.Linear(4 * dim, dim)

    def forward(self, tokens):
        h = self.embed(tokens)
        return self.down(torch.relu(self.up(h))).float().pow(2).mean()


def main():
    mesh, dims = build_mesh(dp=2, tp=4)
    model = MLP().cuda()
    parallelize_module(model, mesh["tp"], {"up": ColwiseParallel(), "down": RowwiseParallel()})
    fully_shard(model, mesh=mesh["dp"])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    loader, sampler = build_loader(dims, batch_size=4)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for (tokens,) in loader:
            loss = model(tokens.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
