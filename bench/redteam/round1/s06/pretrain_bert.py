import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import BertConfig, BertForPreTraining

from dist_env import export_slurm_env


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    export_slurm_env()
    deepspeed.init_distributed(dist_backend="nccl")
    model = BertForPreTraining(BertConfig.from_pretrained("bert-large-uncased"))
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    shards = torch.load("data/shard0.pt", map_location="cpu")
    sampler = DistributedSampler(shards)
    loader = DataLoader(shards, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in loader:
            out = engine(**{k: v.to(engine.device) for k, v in batch.items()})
            engine.backward(out.loss)
            engine.step()


if __name__ == "__main__":
    main()
