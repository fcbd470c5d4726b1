"""Reward model training, ZeRO-3 on 8 GPUs.

    deepspeed --num_gpus 8 train_rm.py --micro_batch 4
"""
import argparse

import deepspeed
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForSequenceClassification

from ds_cfg import get_ds_config
from save_utils import save_model_weights


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--micro_batch", type=int, default=4)
    parser.add_argument("--local_rank", type=int, default=-1)
    args = parser.parse_args()

    deepspeed.init_distributed()
    model = AutoModelForSequenceClassification.from_pretrained("facebook/opt-1.3b", num_labels=1)
    ds_config = get_ds_config(args.micro_batch)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)

    pairs = torch.load("data/pairs.pt", map_location="cpu")
    sampler = DistributedSampler(pairs)
    loader = DataLoader(pairs, batch_size=args.micro_batch, sampler=sampler)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for chosen, rejected in loader:
            r_c = engine(input_ids=chosen.to(engine.device)).logits
            r_r = engine(input_ids=rejected.to(engine.device)).logits
            loss = -torch.nn.functional.logsigmoid(r_c - r_r).mean()
            engine.backward(loss)
            engine.step()
    save_model_weights(engine, "rm_out", dist.get_rank())


if __name__ == "__main__":
    main()
