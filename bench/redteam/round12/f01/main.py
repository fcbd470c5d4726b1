#!/usr/bin/env python
"""Step 1 supervised fine-tuning (DeepSpeed-Chat layout)."""
import argparse
import math

import deepspeed
import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.adam import DeepSpeedCPUAdam, FusedAdam
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer, get_scheduler

from utils.data import PromptAnswerDataset, default_collate
from utils.ds_utils import get_optimizer_grouped_parameters, get_train_ds_config


def parse_args():
    parser = argparse.ArgumentParser(description="Finetune a causal LM on prompt/answer pairs")
    parser.add_argument("--data_path", type=str, required=True)
    parser.add_argument("--model_name_or_path", type=str, required=True)
    parser.add_argument("--per_device_train_batch_size", type=int, default=4)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser.add_argument("--max_seq_len", type=int, default=512)
    parser.add_argument("--learning_rate", type=float, default=1e-5)
    parser.add_argument("--weight_decay", type=float, default=0.0)
    parser.add_argument("--num_train_epochs", type=int, default=1)
    parser.add_argument("--num_warmup_steps", type=int, default=0)
    parser.add_argument("--output_dir", type=str, default=None)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--gradient_checkpointing", action="store_true")
    parser.add_argument("--offload", action="store_true", help="Enable ZeRO Offload techniques.")
    parser.add_argument("--dtype", type=str, default="bf16", choices=["fp16", "bf16"])
    parser.add_argument("--zero_stage", type=int, default=0, help="ZeRO optimization stage for Actor model.")
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()

    if args.local_rank == -1:
        device = torch.device(get_accelerator().device_name())
    else:
        get_accelerator().set_device(args.local_rank)
        device = torch.device(get_accelerator().device_name(), args.local_rank)
        deepspeed.init_distributed()
    args.global_rank = torch.distributed.get_rank()

    ds_config = get_train_ds_config(offload=args.offload, dtype=args.dtype, stage=args.zero_stage)
    ds_config["train_micro_batch_size_per_gpu"] = args.per_device_train_batch_size
    ds_config["train_batch_size"] = (args.per_device_train_batch_size * torch.distributed.get_world_size()
                                     * args.gradient_accumulation_steps)
    torch.distributed.barrier()

    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, torch_dtype=torch.bfloat16)

    train_dataset = PromptAnswerDataset(args.data_path, tokenizer, args.max_seq_len)
    train_sampler = DistributedSampler(train_dataset)
    train_dataloader = DataLoader(train_dataset, collate_fn=default_collate, sampler=train_sampler,
                                  batch_size=args.per_device_train_batch_size)

    optimizer_grouped_parameters = get_optimizer_grouped_parameters(model, args.weight_decay)
    AdamOptimizer = DeepSpeedCPUAdam if args.offload else FusedAdam
    optimizer = AdamOptimizer(optimizer_grouped_parameters, lr=args.learning_rate, betas=(0.9, 0.95))

    num_update_steps_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    lr_scheduler = get_scheduler(name="cosine", optimizer=optimizer, num_warmup_steps=args.num_warmup_steps,
                                 num_training_steps=args.num_train_epochs * num_update_steps_per_epoch)

    model, optimizer, _, lr_scheduler = deepspeed.initialize(model=model, optimizer=optimizer, args=args,
                                                             config=ds_config, lr_scheduler=lr_scheduler,
                                                             dist_init_required=True)
    if args.gradient_checkpointing:
        model.gradient_checkpointing_enable()

    for epoch in range(args.num_train_epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for step, batch in enumerate(train_dataloader):
            batch = {k: v.to(device) for k, v in batch.items()}
            outputs = model(**batch, use_cache=False)
            model.backward(outputs.loss)
            model.step()
            if args.global_rank == 0 and step % 50 == 0:
                print(f"epoch {epoch} step {step} loss {outputs.loss.item():.4f}", flush=True)

    model.save_checkpoint(args.output_dir)


if __name__ == "__main__":
    main()
