import argparse
import math

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, get_cosine_schedule_with_warmup

from utils.checkpointing import PeriodicCheckpointer


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model_name_or_path", required=True)
    p.add_argument("--dataset_name", required=True)
    p.add_argument("--output_dir", required=True)
    p.add_argument("--per_device_batch_size", type=int, default=4)
    p.add_argument("--learning_rate", type=float, default=2e-5)
    p.add_argument("--max_seq_len", type=int, default=2048)
    p.add_argument("--checkpointing_steps", type=int, default=500)
    p.add_argument("--max_train_steps", type=int, default=6000)
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator(log_with="tensorboard", project_dir=args.output_dir)
    set_seed(args.seed)

    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    tokenizer.pad_token = tokenizer.eos_token
    raw = load_dataset(args.dataset_name, split="train_sft")

    def tokenize(example):
        text = tokenizer.apply_chat_template(example["messages"], tokenize=False)
        return tokenizer(text, truncation=True, max_length=args.max_seq_len)

    with accelerator.main_process_first():
        train_set = raw.map(tokenize, remove_columns=raw.column_names, num_proc=8)
    collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)
    train_loader = DataLoader(train_set, batch_size=args.per_device_batch_size, shuffle=True, collate_fn=collator)

    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.0)
    scheduler = get_cosine_schedule_with_warmup(optimizer, 100, args.max_train_steps)
    model, optimizer, train_loader, scheduler = accelerator.prepare(model, optimizer, train_loader, scheduler)

    checkpointer = PeriodicCheckpointer(args.output_dir, every=args.checkpointing_steps)
    accelerator.init_trackers("sft")
    epochs = math.ceil(args.max_train_steps * accelerator.gradient_accumulation_steps / len(train_loader))
    completed = 0
    model.train()
    for epoch in range(epochs):
        for batch in train_loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                completed += 1
                accelerator.log({"loss": loss.item(), "lr": scheduler.get_last_lr()[0]}, step=completed)
                checkpointer.maybe_save(accelerator, completed)
            if completed >= args.max_train_steps:
                break
        if completed >= args.max_train_steps:
            break

    accelerator.wait_for_everyone()
    unwrapped = accelerator.unwrap_model(model)
    unwrapped.save_pretrained(args.output_dir, is_main_process=accelerator.is_main_process,
                              save_function=accelerator.save, state_dict=accelerator.get_state_dict(model))
    accelerator.end_training()


if __name__ == "__main__":
    main()
