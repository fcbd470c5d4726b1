"""SFT with accelerate + DeepSpeed ZeRO-2 (optimizer offloaded to the CPU); see launch.sh."""
import argparse
import functools
import math

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

from data_utils import ChatJsonl, pad_collate


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run_name", required=True)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--init_from", default="Qwen/Qwen2.5-3B")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--batch_size", type=int, default=4)
    return parser.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator()
    set_seed(42)

    tokenizer = AutoTokenizer.from_pretrained(args.init_from)
    model = AutoModelForCausalLM.from_pretrained(args.init_from, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()

    dataset = ChatJsonl(args.dataset, tokenizer)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=2,
                        collate_fn=functools.partial(pad_collate, pad_id=tokenizer.pad_token_id))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    steps = math.ceil(len(loader) / accelerator.gradient_accumulation_steps) * args.epochs
    scheduler = get_cosine_schedule_with_warmup(optimizer, int(0.03 * steps), steps)

    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)

    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(loader):
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if step % 20 == 0:
                accelerator.print(f"[{args.run_name}] epoch {epoch} step {step} loss {loss.item():.4f}")

    accelerator.wait_for_everyone()
    out_dir = f"outputs/{args.run_name}"
    accelerator.unwrap_model(model).save_pretrained(
        out_dir, is_main_process=accelerator.is_main_process, save_function=accelerator.save,
        state_dict=accelerator.get_state_dict(model))
    if accelerator.is_main_process:
        tokenizer.save_pretrained(out_dir)


if __name__ == "__main__":
    main()
