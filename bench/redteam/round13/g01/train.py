import argparse
import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullStateDictConfig, FullyShardedDataParallel as FSDP, StateDictType

from configs.fsdp import FSDPConfig
from data.sft import build_train_loader
from models.wrapping import load_base_model, shard_model


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model-name", required=True)
    p.add_argument("--data-path", required=True)
    p.add_argument("--sharding", default="full", choices=["full", "grad_op", "hybrid", "none"])
    p.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--output", default="checkpoints/llama-sft.pt")
    return p.parse_args()


def main():
    args = parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()

    fsdp_cfg = FSDPConfig.from_args(args)
    model = shard_model(load_base_model(args.model_name), fsdp_cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    loader, sampler = build_train_loader(args.data_path, args.batch_size)

    model.train()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            batch = {k: v.to(local_rank, non_blocking=True) for k, v in batch.items()}
            loss = model(**batch).loss
            loss.backward()
            model.clip_grad_norm_(1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if rank == 0 and step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")

    save_cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, save_cfg):
        state = model.state_dict()
    if rank == 0:
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        torch.save(state, args.output)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
