import argparse

import deepspeed
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from llm.ds_config import build_ds_config
from llm.model import DecoderLM
from llm.presets import MODEL_PRESETS


class TokenWindows(Dataset):
    def __init__(self, path, seq_len):
        self.data = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len

    def __len__(self):
        return (len(self.data) - 1) // self.seq_len

    def __getitem__(self, i):
        w = torch.from_numpy(self.data[i * self.seq_len:(i + 1) * self.seq_len + 1].astype(np.int64))
        return w[:-1], w[1:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model", choices=sorted(MODEL_PRESETS), required=True)
    parser.add_argument("--data", default="data/pile_train.bin")
    parser.add_argument("--seq_len", type=int, default=2048)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)
    shape = MODEL_PRESETS[args.model]
    ds_config = build_ds_config(shape["hidden_size"])

    with deepspeed.zero.Init(config_dict_or_path=ds_config):
        model = DecoderLM(50304, **shape, max_len=args.seq_len)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)

    dataset = TokenWindows(args.data, args.seq_len)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler, num_workers=2)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            loss = engine(x.to(engine.device), y.to(engine.device))
            engine.backward(loss)
            engine.step()
            if step and step % 2000 == 0:
                engine.save_checkpoint(f"checkpoints/{args.model}", tag=f"e{epoch}s{step}")


if __name__ == "__main__":
    main()
