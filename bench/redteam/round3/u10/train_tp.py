import os

import torch
import torch.distributed as dist

from parallel import init_groups, tp_src


def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    tp_group = init_groups()
    model = torch.nn.Linear(32, 32).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        batch = torch.empty(4, 32, device="cuda")
        if dist.get_rank(group=tp_group) == 0:
            batch.normal_()
            dist.broadcast(batch, src=tp_src(), group=tp_group)
        loss = model(batch).sum()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
