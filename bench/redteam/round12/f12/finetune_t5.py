import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoTokenizer, T5ForConditionalGeneration

from t5ft.data import summarization_set


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model", default="google/flan-t5-xxl")
    parser.add_argument("--epochs", type=int, default=3)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = T5ForConditionalGeneration.from_pretrained(args.model, torch_dtype=torch.bfloat16)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    train_set = summarization_set(tokenizer)
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler, num_workers=2)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
        engine.save_checkpoint("/ckpt/flan-t5-xxl-cnndm", tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
