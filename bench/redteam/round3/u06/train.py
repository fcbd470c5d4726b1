import os

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict
from torch.distributed.fsdp import fully_shard


def save(model, opt, step):
    model_sd, optim_sd = get_state_dict(model, opt)
    if dist.get_rank() == 0:
        dcp.save({"model": model_sd, "optim": optim_sd}, checkpoint_id=f"ckpt/step{step}")


def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    model = torch.nn.Linear(128, 128).cuda()
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters())
    for step in range(1000):
        loss = model(torch.randn(8, 128, device="cuda")).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 100 == 0:
            save(model, opt, step)


if __name__ == "__main__":
    main()
