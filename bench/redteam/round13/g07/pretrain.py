import deepspeed
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from configs.arguments import get_args
from model.gpt import TokenBlocks, build_model


def main():
    args = get_args()
    deepspeed.init_distributed(dist_backend="nccl")
    torch.manual_seed(args.seed)

    model = build_model(args)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = TokenBlocks(args.data_path, args.seq_len)
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank(), shuffle=True)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=args.num_workers, pin_memory=True, drop_last=True)

    engine.train()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, tokens in enumerate(loader):
            tokens = tokens.to(engine.device, non_blocking=True)
            loss = engine(input_ids=tokens, labels=tokens).loss
            engine.backward(loss)
            engine.step()
            if engine.is_gradient_accumulation_boundary() and engine.global_steps % args.save_interval == 0:
                engine.save_checkpoint(args.save_dir, tag=f"step{engine.global_steps}")

    engine.save_checkpoint(args.save_dir, tag="final")


if __name__ == "__main__":
    main()
