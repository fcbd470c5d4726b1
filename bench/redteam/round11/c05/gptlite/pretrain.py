import argparse

import deepspeed
from torch.utils.data import DataLoader, DistributedSampler

from gptlite.data import TokenBlocks
from gptlite.model import GPT, GPTConfig


def parse_args():
    parser = argparse.ArgumentParser(description="GPT-lite pretraining")
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--save-dir", default="checkpoints/gptlite")
    parser.add_argument("--save-every", type=int, default=5000)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    deepspeed.init_distributed()
    cfg = GPTConfig()
    model = GPT(cfg)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = TokenBlocks(args.data, cfg.seq_len)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1337)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=4, pin_memory=True, drop_last=True)

    last_saved = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(engine.device, non_blocking=True), y.to(engine.device, non_blocking=True)
            loss = engine(x, y)
            engine.backward(loss)
            engine.step()
            if engine.global_steps != last_saved and engine.global_steps % args.save_every == 0:
                engine.save_checkpoint(args.save_dir)
                last_saved = engine.global_steps
    engine.save_checkpoint(args.save_dir)


if __name__ == "__main__":
    main()
