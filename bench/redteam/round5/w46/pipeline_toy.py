import os
import torch
import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    stage = torch.nn.Linear(256, 256).cuda()
    opt = torch.optim.SGD(stage.parameters(), lr=0.01)
    for step in range(100):
        if rank == 0:
            act = stage(torch.randn(8, 256, device="cuda"))
            dist.send(act.detach(), dst=1)
            grad = torch.empty_like(act)
            dist.recv(grad, src=1)
            act.backward(grad)
        else:
            inp = torch.empty(8, 256, device="cuda")
            dist.recv(inp, src=0)
            inp.requires_grad_(True)
            loss = stage(inp).pow(2).mean()
            loss.backward()
            dist.send(inp.grad, dst=0)
        opt.step()
        opt.zero_grad()
        if rank == 0:
            gathered = [torch.zeros(1, device="cuda") for _ in range(2)]
        else:
            gathered = None
        dist.gather(torch.ones(1, device="cuda"), gathered, dst=0)


if __name__ == "__main__":
    main()
