import os

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.distributed.fsdp import fully_shard


def export(model, path):
    sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    if dist.get_rank() == 0:
        torch.save(sd, path)
    dist.barrier()


def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    model = torch.nn.Linear(128, 128).cuda()
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters())
    for step in range(100):
        loss = model(torch.randn(8, 128, device="cuda")).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    export(model, "final.pt")


if __name__ == "__main__":
    main()
