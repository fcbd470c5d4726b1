import argparse
import json
import os

import deepspeed
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer

from data_prep import build_sft_dataset, collate
from dist_helpers import global_barrier


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", default="data/sft.jsonl")
    parser.add_argument("--cache_dir", default="cache/sft")
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    torch.cuda.set_device(args.local_rank)
    deepspeed.init_distributed("nccl")
    rank = dist.get_rank()

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    if rank != 0:
        global_barrier()
    dataset = build_sft_dataset(args.data, tokenizer, cache_dir=args.cache_dir)
    if rank == 0:
        global_barrier()

    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    sampler = DistributedSampler(dataset, shuffle=True, seed=17)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        collate_fn=collate(tokenizer.pad_token_id), num_workers=2)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
        engine.save_checkpoint(os.path.join(args.output_dir, "checkpoints"), tag=f"epoch{epoch}")

    engine.save_16bit_model(args.output_dir)
    if rank == 0:
        tokenizer.save_pretrained(args.output_dir)
        engine.module.config.save_pretrained(args.output_dir)
        with open(os.path.join(args.output_dir, "train_args.json"), "w") as f:
            json.dump(vars(args), f, indent=2)
    global_barrier()


if __name__ == "__main__":
    main()
