"""GPT pretraining loop on DeepSpeed; the config is written by scripts/pretrain_gpt.sh."""
import argparse

import deepspeed
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler
from transformers import GPT2Config, GPT2LMHeadModel


class PackedTokens(Dataset):
    def __init__(self, path, seq_len=2048):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return len(self.tokens) // self.seq_len

    def __getitem__(self, i):
        start = i * self.seq_len
        return torch.from_numpy(np.asarray(self.tokens[start:start + self.seq_len], dtype=np.int64))


def get_args():
    parser = argparse.ArgumentParser(description="GPT pretraining")
    parser.add_argument("--local_rank", type=int, default=-1, help="set by the deepspeed launcher")
    parser.add_argument("--data-path", required=True)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--train-iters", type=int, default=20000)
    parser.add_argument("--save", default="checkpoints")
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = get_args()
    deepspeed.init_distributed()
    model = GPT2LMHeadModel(GPT2Config(n_positions=2048, n_embd=2048, n_layer=24, n_head=16))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, optimizer=optimizer)

    dataset = PackedTokens(args.data_path)
    sampler = DistributedSampler(dataset, shuffle=True, seed=42)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=2, pin_memory=True, drop_last=True)

    micro, epoch = 0, 0
    save_every = 1000 * engine.gradient_accumulation_steps()
    while engine.global_steps < args.train_iters:
        sampler.set_epoch(epoch)
        for tokens in loader:
            tokens = tokens.to(engine.device)
            loss = engine(input_ids=tokens, labels=tokens).loss
            engine.backward(loss)
            engine.step()
            micro += 1
            if micro % save_every == 0:
                engine.save_checkpoint(args.save, tag=f"step{engine.global_steps}")
            if dist.get_rank() == 0 and micro % 100 == 0:
                print(f"step {engine.global_steps} loss {loss.item():.4f}", flush=True)
            if engine.global_steps >= args.train_iters:
                break
        epoch += 1
    engine.save_checkpoint(args.save, tag="final")


if __name__ == "__main__":
    main()
