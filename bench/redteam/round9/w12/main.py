import deepspeed
import numpy as np
import torch
from jsonargparse import CLI
from transformers import AutoConfig, AutoModelForCausalLM

from pretrain.callbacks import PeriodicCheckpoint
from pretrain.loop import Loop


def token_stream(path, micro_batch, seq_len, rank, world):
    data = torch.from_numpy(np.memmap(path, dtype="uint16", mode="r").astype("int64"))
    n = (len(data) - 1) // (seq_len + 1)
    for start in range(rank * micro_batch, n - micro_batch, world * micro_batch):
        idx = torch.arange(start, start + micro_batch)
        yield torch.stack([data[i * (seq_len + 1):(i + 1) * (seq_len + 1)] for i in idx])


def main(arch: str = "gpt2-medium", data: str = "data/tokens.bin", seq_len: int = 1024,
         max_steps: int = 100_000, save_dir: str = "checkpoints", ds_config: str = "configs/zero2.json"):
    deepspeed.init_distributed()
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(arch))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
    rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
    batches = token_stream(data, engine.train_micro_batch_size_per_gpu(), seq_len, rank, world)
    Loop(engine, batches, [PeriodicCheckpoint(save_dir)], max_steps).run()


if __name__ == "__main__":
    CLI(main)
