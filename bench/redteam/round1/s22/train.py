import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM

from export import export_fp32


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--local_rank", type=int, default=-1)
    ap = deepspeed.add_config_arguments(ap)
    args = ap.parse_args()
    deepspeed.init_distributed()
    model = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-6.9b")
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    data = torch.load("data/tokens.pt", map_location="cpu")
    sampler = DistributedSampler(data, num_replicas=engine.dp_world_size, rank=engine.global_rank)
    loader = DataLoader(data, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = batch.to(engine.device)
            loss = engine(input_ids=batch, labels=batch).loss
            engine.backward(loss)
            engine.step()
        engine.save_checkpoint("ckpt")
    engine.save_16bit_model("final")
    export_fp32(engine, "final/fp32.pt")


if __name__ == "__main__":
    main()
