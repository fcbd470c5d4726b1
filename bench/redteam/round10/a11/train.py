import argparse

import deepspeed
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer

from checkpointing import export_hf_checkpoint
from data import InstructionDataset, collate_batch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="EleutherAI/pythia-1.4b")
    parser.add_argument("--train_file", default="data/alpaca.json")
    parser.add_argument("--output_dir", default="out/pythia-sft")
    parser.add_argument("--ds_config", default="configs/ds_zero3.json")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    deepspeed.init_distributed("nccl")
    tokenizer = AutoTokenizer.from_pretrained(args.model_name)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model_name)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=args.ds_config)

    dataset = InstructionDataset(args.train_file, tokenizer, max_len=1024)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1234)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        collate_fn=collate_batch(tokenizer.pad_token_id), num_workers=2)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
            if dist.get_rank() == 0 and step % 50 == 0:
                print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")
        engine.save_checkpoint(f"{args.output_dir}/ds_ckpt", tag=f"epoch{epoch}")

    export_hf_checkpoint(engine, tokenizer, args.output_dir)


if __name__ == "__main__":
    main()
