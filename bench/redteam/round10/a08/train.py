import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer

from dpo import DPOTrainer, PreferencePairs, pair_collate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sft", required=True)
    parser.add_argument("--pairs", default="data/prefs.jsonl")
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--lr", type=float, default=5e-7)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--pairs-per-batch", type=int, default=4)
    parser.add_argument("--out", default="out/dpo-policy")
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    tokenizer = AutoTokenizer.from_pretrained(args.sft)
    pairs = PreferencePairs(args.pairs, tokenizer, max_len=1024)
    sampler = DistributedSampler(pairs, shuffle=True, seed=0)
    loader = DataLoader(pairs, batch_size=args.pairs_per_batch, sampler=sampler,
                        collate_fn=pair_collate(tokenizer.pad_token_id), num_workers=2)

    policy = AutoModelForCausalLM.from_pretrained(args.sft, torch_dtype=torch.bfloat16).to(device)
    reference = AutoModelForCausalLM.from_pretrained(args.sft, torch_dtype=torch.bfloat16).to(device)
    policy = DDP(policy, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(policy.parameters(), lr=args.lr, weight_decay=0.0)
    trainer = DPOTrainer(policy, reference, optimizer, beta=args.beta)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
            loss, margin = trainer.train_step(batch)
            if dist.get_rank() == 0 and step % 20 == 0:
                print(f"epoch {epoch} step {step}: loss {loss.item():.4f} margin {margin.item():.3f}")

    if dist.get_rank() == 0:
        policy.module.save_pretrained(args.out)
        tokenizer.save_pretrained(args.out)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
