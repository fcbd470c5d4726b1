import os

import click
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from transformers import GPT2Config, GPT2LMHeadModel

from corpus import PackedTokens
from trainer import Trainer


@click.command()
@click.option("--data", default="data/owt_train.bin")
@click.option("--seq-len", default=1024)
@click.option("--batch-size", default=16)
@click.option("--epochs", default=1)
@click.option("--lr", default=6e-4)
@click.option("--sample-every", default=1000)
@click.option("--out", default="ckpt/gpt2-small.pt")
def main(data, seq_len, batch_size, epochs, lr, sample_every, out):
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)

    dataset = PackedTokens(data, seq_len)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=2, pin_memory=True, drop_last=True)
    model = GPT2LMHeadModel(GPT2Config(n_positions=seq_len, n_embd=768, n_layer=12, n_head=12)).to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.1)

    trainer = Trainer(model, optimizer, loader, sampler, device)
    trainer.fit(epochs, sample_every, torch.tensor([[50256]]))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    trainer.save(out)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
