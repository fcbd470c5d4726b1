import argparse

import deepspeed
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, DistributedSampler

from recsys.data import ClickPairs
from recsys.model import CrossEncoderRanker


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--train-dir", required=True)
    parser.add_argument("--epochs", type=int, default=4)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)

    model = CrossEncoderRanker()
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = ClickPairs(args.train_dir)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=4, pin_memory=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, (ids, mask, clicked) in enumerate(loader):
            ids, mask, clicked = ids.to(engine.device), mask.to(engine.device), clicked.to(engine.device)
            logits = engine(ids, mask)
            loss = F.binary_cross_entropy_with_logits(logits.float(), clicked)
            engine.backward(loss)
            engine.step()
            if engine.global_rank == 0 and step % 200 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        engine.save_checkpoint("checkpoints/ranker", tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
