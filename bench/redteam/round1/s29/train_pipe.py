"""GPT-style model in 2 pipeline stages x 4 data-parallel replicas.

    deepspeed --num_gpus 8 train_pipe.py --deepspeed_config ds_pipe.json
"""
import argparse

import deepspeed
import torch
import torch.nn as nn
from deepspeed.pipe import LayerSpec, PipelineModule


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.ff(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--local_rank", type=int, default=-1)
    ap = deepspeed.add_config_arguments(ap)
    args = ap.parse_args()
    deepspeed.init_distributed()
    layers = [LayerSpec(Block, 2048) for _ in range(24)]
    net = PipelineModule(layers=layers, num_stages=2, loss_fn=nn.MSELoss())
    engine, _, _, _ = deepspeed.initialize(args=args, model=net, model_parameters=[p for p in net.parameters() if p.requires_grad])
    data = [(torch.randn(16, 128, 2048), torch.randn(16, 128, 2048)) for _ in range(64)]
    it = iter(deepspeed.utils.RepeatingLoader(data))
    for step in range(10000):
        engine.train_batch(data_iter=it)


if __name__ == "__main__":
    main()
