"""Full fine-tune of a 7B causal LM with ZeRO-2 + CPU optimizer offload (make train)."""
import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM

from llm.optim import build_optimizer


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="meta-llama/Llama-2-7b-hf")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    deepspeed.init_distributed()
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    optimizer = build_optimizer(model)
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, optimizer=optimizer)
    data = torch.load("data/tokens.pt", map_location="cpu")
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = batch.to(engine.device)
            loss = engine(input_ids=batch, labels=batch).loss
            engine.backward(loss)
            engine.step()
    engine.save_checkpoint("out")


if __name__ == "__main__":
    main()
