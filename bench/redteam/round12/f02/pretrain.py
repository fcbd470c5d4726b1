"""GPT-2 style pretraining on packed token files with DeepSpeed ZeRO-1."""
import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler

from gptlm import PackedTokens, build_model


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model_size", choices=["350m", "760m"], default="350m")
    parser.add_argument("--train_tokens", default="data/openwebtext_train.bin")
    parser.add_argument("--seq_len", type=int, default=1024)
    parser.add_argument("--max_steps", type=int, default=60000)
    parser.add_argument("--save_dir", default="checkpoints/gpt")
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = get_args()
    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)

    model = build_model(args.model_size, args.seq_len)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = PackedTokens(args.train_tokens, args.seq_len)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1234)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=2, pin_memory=True, drop_last=True)

    step, epoch = 0, 0
    while step < args.max_steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(engine.device), y.to(engine.device)
            loss = engine(input_ids=x, labels=y).loss
            engine.backward(loss)
            engine.step()
            if engine.is_gradient_accumulation_boundary():
                step += 1
                if step % 5000 == 0:
                    engine.save_checkpoint(args.save_dir, tag=f"step{step}")
            if step >= args.max_steps:
                break
        epoch += 1


if __name__ == "__main__":
    main()
