"""Supervised fine-tuning of a 7B causal LM with DeepSpeed ZeRO-2 (optimizer states offloaded to host RAM)."""
import argparse
import math
import os
import time

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer

from sft.data import SupervisedJsonl, make_collate
from sft.dist import init_distributed, is_main_process, print_rank_0


def parse_args():
    parser = argparse.ArgumentParser(description="SFT with DeepSpeed")
    parser.add_argument("--model_name_or_path", type=str, required=True)
    parser.add_argument("--train_file", type=str, default="data/alpaca_cleaned.jsonl")
    parser.add_argument("--eval_file", type=str, default="data/alpaca_eval.jsonl")
    parser.add_argument("--output_dir", type=str, default="checkpoints/sft")
    parser.add_argument("--max_seq_len", type=int, default=1024)
    parser.add_argument("--num_train_epochs", type=int, default=3)
    parser.add_argument("--gradient_checkpointing", action="store_true")
    parser.add_argument("--eval_batches", type=int, default=50)
    parser.add_argument("--save_every_epochs", type=int, default=1)
    parser.add_argument("--num_workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


@torch.no_grad()
def evaluate(engine, loader, max_batches):
    engine.eval()
    losses = torch.zeros(2, device=engine.device)
    for i, batch in enumerate(loader):
        if i >= max_batches:
            break
        batch = {k: v.to(engine.device) for k, v in batch.items()}
        losses[0] += engine(**batch).loss.float()
        losses[1] += 1
    torch.distributed.all_reduce(losses)
    engine.train()
    return (losses[0] / losses[1]).item()


def main():
    args = parse_args()
    init_distributed()
    torch.manual_seed(args.seed)

    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path, use_fast=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, torch_dtype=torch.bfloat16)
    if args.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.config.use_cache = False

    engine, _, _, _ = deepspeed.initialize(args=args, model=model,
                                           model_parameters=[p for p in model.parameters() if p.requires_grad])

    collate = make_collate(tokenizer.pad_token_id)
    train_set = SupervisedJsonl(args.train_file, tokenizer, args.max_seq_len)
    eval_set = SupervisedJsonl(args.eval_file, tokenizer, args.max_seq_len)
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    train_loader = DataLoader(train_set, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=train_sampler,
                              collate_fn=collate, num_workers=args.num_workers, pin_memory=True, drop_last=True)
    eval_loader = DataLoader(eval_set, batch_size=engine.train_micro_batch_size_per_gpu(),
                             sampler=DistributedSampler(eval_set, shuffle=False), collate_fn=collate)
    print_rank_0(f"{len(train_set)} training examples, {len(train_loader)} micro-batches per rank and epoch")

    for epoch in range(args.num_train_epochs):
        train_sampler.set_epoch(epoch)
        tic = time.time()
        for step, batch in enumerate(train_loader):
            batch = {k: v.to(engine.device, non_blocking=True) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
            if engine.is_gradient_accumulation_boundary() and engine.global_steps % 10 == 0:
                print_rank_0(f"epoch {epoch} step {engine.global_steps} loss {loss.item():.4f} "
                             f"{(step + 1) / (time.time() - tic):.2f} it/s")
        eval_loss = evaluate(engine, eval_loader, args.eval_batches)
        print_rank_0(f"epoch {epoch}: eval loss {eval_loss:.4f} ppl {math.exp(min(eval_loss, 20)):.2f}")
        if (epoch + 1) % args.save_every_epochs == 0:
            engine.save_checkpoint(args.output_dir, tag=f"epoch_{epoch}")
            if is_main_process():
                tokenizer.save_pretrained(os.path.join(args.output_dir, f"epoch_{epoch}"))


if __name__ == "__main__":
    main()
