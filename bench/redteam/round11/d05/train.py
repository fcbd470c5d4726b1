import argparse
import json

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.integrations import HfDeepSpeedConfig

from sftlib.data import ChatSFT
from sftlib.evaluation import evaluate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model", required=True)
    parser.add_argument("--train-file", required=True)
    parser.add_argument("--val-file", required=True)
    parser.add_argument("--micro-batch-size", type=int, default=2)
    parser.add_argument("--grad-accum", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=2)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)

    with open(args.deepspeed_config) as f:
        ds_config = json.load(f)
    ds_config["train_micro_batch_size_per_gpu"] = args.micro_batch_size
    ds_config["gradient_accumulation_steps"] = args.grad_accum
    # Must exist before from_pretrained so the weights are loaded straight into ZeRO-3 partitions.
    dschf = HfDeepSpeedConfig(ds_config)  # noqa: F841  (keep alive)

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)

    train_set = ChatSFT(args.train_file, tokenizer)
    sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=args.micro_batch_size, sampler=sampler, num_workers=2)
    val_set = ChatSFT(args.val_file, tokenizer)
    val_loader = DataLoader(val_set, batch_size=args.micro_batch_size,
                            sampler=DistributedSampler(val_set, shuffle=False))

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(train_loader):
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
        val_loss, ppl = evaluate(engine, val_loader)
        if engine.global_rank == 0:
            print(f"epoch {epoch}: val loss {val_loss:.4f} ppl {ppl:.2f}", flush=True)
        engine.save_16bit_model(f"out/epoch{epoch}")


if __name__ == "__main__":
    main()
