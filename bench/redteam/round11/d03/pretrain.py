import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler

from lm.data import TokenBlocks
from lm.ds_config import load_ds_config
from lm.model import gpt_1b3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--ds-base", default="configs/base.json")
    parser.add_argument("--ds-override", default=None)
    parser.add_argument("--data", required=True)
    parser.add_argument("--steps", type=int, default=100000)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)
    ds_config = load_ds_config(args.ds_base, args.ds_override)

    model = gpt_1b3()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)

    dataset = TokenBlocks(args.data)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1234)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=4, pin_memory=True, drop_last=True)

    step, epoch = 0, 0
    while step < args.steps:
        sampler.set_epoch(epoch)
        for tokens in loader:
            tokens = tokens.to(engine.device)
            loss = engine(input_ids=tokens, labels=tokens).loss  # the model shifts the labels
            engine.backward(loss)
            engine.step()
            step += 1
            if step % 5000 == 0:
                engine.save_checkpoint("checkpoints", tag=f"step{step}")
            if step >= args.steps:
                break
        epoch += 1


if __name__ == "__main__":
    main()
