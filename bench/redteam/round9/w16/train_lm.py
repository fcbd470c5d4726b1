import os

import fire
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from transformers import AutoConfig, AutoModelForCausalLM

from corpus import streams


def train(data="shards/*.jsonl", fmt="JsonlTokens", seq_len=2048, batch_size=8, max_steps=20000, lr=3e-4):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")

    dataset_cls = getattr(streams, fmt)
    dataset = dataset_cls(data, seq_len)
    loader = DataLoader(dataset, batch_size=batch_size, num_workers=4, pin_memory=True)

    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained("EleutherAI/pythia-410m")).cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.1)
    for step, batch in enumerate(loader):
        batch = batch.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(batch[:, :-1]).logits
        loss = F.cross_entropy(logits.float().flatten(0, 1), batch[:, 1:].flatten())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step + 1 >= max_steps:
            break
    dist.destroy_process_group()


if __name__ == "__main__":
    fire.Fire(train)
