import argparse
import os

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM

from sft.data import TokenizedSFT, collate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--model", default="openlm-research/open_llama_3b_v2")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed()

    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = TokenizedSFT(args.data)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        collate_fn=collate, num_workers=2)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        engine.train()
        for step, batch in enumerate(loader):
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
            if engine.global_rank == 0 and step % 50 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        engine.save_checkpoint("checkpoints", tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
