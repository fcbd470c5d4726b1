import argparse
import os

import deepspeed
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoTokenizer, T5ForConditionalGeneration

from summ.data import cnn_dailymail

MODEL = "google/flan-t5-xl"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--out", default="runs/flan-t5-xl")
    parser.add_argument("--lr", type=float, default=1e-4)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed()

    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    model = T5ForConditionalGeneration.from_pretrained(MODEL, torch_dtype=torch.bfloat16)
    optimizer = DeepSpeedCPUAdam(model.parameters(), lr=args.lr, weight_decay=0.01)
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, optimizer=optimizer)

    train_set = cnn_dailymail(tokenizer, "train")
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=2, pin_memory=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
        engine.save_checkpoint(os.path.join(args.out, "ckpt"), tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
