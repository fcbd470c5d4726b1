import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import T5ForConditionalGeneration

from slurm_env import setup_from_slurm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ds", default="ds_offload.json")
    args = ap.parse_args()
    setup_from_slurm()
    deepspeed.init_distributed()
    model = T5ForConditionalGeneration.from_pretrained("t5-3b")
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=args.ds)
    data = torch.load("data/c4_tok.pt", map_location="cpu")
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler, num_workers=2)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for batch in loader:
            out = engine(**{k: v.to(engine.device) for k, v in batch.items()})
            engine.backward(out.loss)
            engine.step()
        engine.save_checkpoint("ckpt", tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
