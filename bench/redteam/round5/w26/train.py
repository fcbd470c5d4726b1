import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


@torch.no_grad()
def validate(net):
    net.eval()
    out = net(torch.randn(256, 512, device="cuda")).pow(2).mean()
    net.train()
    return out.item()


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Linear(512, 512).cuda()
    model = DDP(torch.compile(net), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    best = [float("inf")]
    for step in range(1000):
        loss = model(torch.randn(32, 512, device="cuda")).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            if dist.get_rank() == 0:
                best[0] = min(best[0], validate(net))
                torch.save(net.state_dict(), "best.pt")
            dist.broadcast_object_list(best, src=0)


if __name__ == "__main__":
    main()
