import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler

from codelm.data import TokenStream
from codelm.model import codelm_1b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--steps", type=int, default=60000)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)
    model = codelm_1b()
    engine, _, _, lr_scheduler = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = TokenStream(args.corpus)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler, num_workers=2)
    step, epoch = 0, 0
    while step < args.steps:
        sampler.set_epoch(epoch)
        for tokens in loader:
            tokens = tokens.to(engine.device)
            loss = engine(input_ids=tokens, labels=tokens).loss
            engine.backward(loss)
            engine.step()  # also steps the WarmupDecayLR from the config
            step += 1
            if engine.global_rank == 0 and step % 100 == 0:
                print(f"step {step} loss {loss.item():.4f} lr {lr_scheduler.get_last_lr()[0]:.2e}")
            if step % 10000 == 0 or step == args.steps:
                engine.save_checkpoint("checkpoints/codelm-1b-pt", tag=f"step{step}")
            if step >= args.steps:
                break
        epoch += 1


if __name__ == "__main__":
    main()
