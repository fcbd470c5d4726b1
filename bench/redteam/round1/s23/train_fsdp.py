import functools
import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM
from transformers.models.llama.modeling_llama import LlamaDecoderLayer

from ckpt import save_full


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
    policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={LlamaDecoderLayer})
    model = FSDP(model, auto_wrap_policy=policy, device_id=torch.cuda.current_device())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    data = torch.load("data/tok.pt", map_location="cpu")
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=2, sampler=sampler)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = batch.cuda()
            loss = model(input_ids=batch, labels=batch).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
        save_full(model, f"ckpt/epoch{epoch}.pt")


if __name__ == "__main__":
    main()
