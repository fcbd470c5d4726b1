import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from transformers import AutoModelForCausalLM

from dist_utils import init_distributed


def main():
    rank, world = init_distributed()
    model = AutoModelForCausalLM.from_pretrained("facebook/opt-1.3b")
    model = FSDP(model, use_orig_params=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    for step in range(1000):
        ids = torch.randint(0, 50000, (4, 512), device="cuda")
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
    dist.barrier()


if __name__ == "__main__":
    main()
