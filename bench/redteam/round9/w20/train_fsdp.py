import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from transformers import AutoConfig, AutoModelForCausalLM

from export import export_full


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")

    config = AutoConfig.from_pretrained("meta-llama/Llama-3.2-1B")
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    for layer in model.model.layers:
        fully_shard(layer)
    fully_shard(model)
    model.to_empty(device="cuda")
    model.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4, betas=(0.9, 0.95))

    tokens = TensorDataset(torch.randint(0, config.vocab_size, (40000, 2049)))
    sampler = DistributedSampler(tokens)
    loader = DataLoader(tokens, batch_size=4, sampler=sampler, drop_last=True)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for step, (batch,) in enumerate(loader):
            batch = batch.cuda()
            logits = model(batch[:, :-1]).logits
            loss = F.cross_entropy(logits.flatten(0, 1).float(), batch[:, 1:].flatten())
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if step and step % 2000 == 0:
                export_full(model, f"exports/step{step}/model.pt")
    export_full(model, "exports/final/model.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
