import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from engine import Evaluator
from engine.evaluator import EvalConfig


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = DDP(torch.nn.Linear(128, 10).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    train_ds = TensorDataset(torch.randn(20000, 128), torch.randint(0, 10, (20000,)))
    val_ds = TensorDataset(torch.randn(4000, 128), torch.randint(0, 10, (4000,)))
    sampler = DistributedSampler(train_ds)
    train_loader = DataLoader(train_ds, batch_size=64, sampler=sampler)
    val_loader = DataLoader(val_ds, batch_size=256, sampler=DistributedSampler(val_ds, shuffle=False))
    evaluator = Evaluator(model, val_loader, EvalConfig())
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        val_loss = evaluator.evaluate()
        if dist.get_rank() == 0:
            print(f"epoch {epoch} val {val_loss:.4f}")


if __name__ == "__main__":
    main()
