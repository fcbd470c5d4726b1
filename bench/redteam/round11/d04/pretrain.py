import argparse
import json

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import LlamaForCausalLM

from llm.data import PackedTokens
from llm.registry import llama_config


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model-size", required=True, choices=["350m", "1b", "7b"])
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--save-dir", default="checkpoints")
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)

    with open(args.deepspeed_config) as f:
        zero_stage = json.load(f)["zero_optimization"]["stage"]
    # Only the 7b config is ZeRO-3: build its layers already partitioned.
    with deepspeed.zero.Init(config_dict_or_path=args.deepspeed_config, enabled=zero_stage == 3):
        model = LlamaForCausalLM(llama_config(args.model_size))
    model.gradient_checkpointing_enable()
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = PackedTokens(args.data)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=2, pin_memory=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, tokens in enumerate(loader):
            tokens = tokens.to(engine.device)
            loss = engine(input_ids=tokens, labels=tokens).loss
            engine.backward(loss)
            engine.step()
            if step % 2000 == 0:
                engine.save_checkpoint(args.save_dir, tag=f"{args.model_size}-e{epoch}-s{step}")


if __name__ == "__main__":
    main()
