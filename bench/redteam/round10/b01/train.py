"""Pretraining entry point: ZeRO-2 with the optimizer offloaded to the host (DeepSpeedCPUAdam)."""
import argparse
import os

import deepspeed
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, DistributedSampler

from data import TokenDataset
from ds_cfg import build_ds_config


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--micro-batch", type=int, default=4)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--data", default="/datasets/pile/train.bin")
    p.add_argument("--save-dir", default="checkpoints/gpt13b")
    return p.parse_args()


def build_model(vocab: int = 50304, width: int = 5120, depth: int = 40) -> torch.nn.Module:
    layer = torch.nn.TransformerEncoderLayer(width, nhead=40, dim_feedforward=4 * width, batch_first=True)
    return torch.nn.Sequential(
        torch.nn.Embedding(vocab, width),
        torch.nn.TransformerEncoder(layer, num_layers=depth),
        torch.nn.Linear(width, vocab, bias=False),
    )


def main():
    args = parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed(dist_backend="nccl")

    model = build_model()
    engine, _, _, _ = deepspeed.initialize(
        model=model,
        model_parameters=model.parameters(),
        config=build_ds_config(micro_batch=args.micro_batch),
    )

    dataset = TokenDataset(args.data)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.micro_batch, sampler=sampler, num_workers=4, pin_memory=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            x, y = x.to(engine.device), y.to(engine.device)
            logits = engine(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
            engine.backward(loss)
            engine.step()
        engine.save_checkpoint(args.save_dir, tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
