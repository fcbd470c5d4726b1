import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoTokenizer

from protein.build import ESM_3B, build_model
from protein.data import MaskedSequences
from protein.export import export_state_dict


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--fasta", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--export-dir", default="export/esm3b-oas")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)

    tokenizer = AutoTokenizer.from_pretrained(ESM_3B)
    model = build_model(args.deepspeed_config)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = MaskedSequences(args.fasta, tokenizer)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler, num_workers=4)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
        engine.save_checkpoint("checkpoints", tag=f"epoch{epoch}")

    export_state_dict(engine, args.export_dir)


if __name__ == "__main__":
    main()
