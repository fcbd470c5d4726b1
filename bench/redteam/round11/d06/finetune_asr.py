"""Fine-tune Whisper-large-v3 on in-house call-centre audio with DeepSpeed ZeRO-2 + CPU offload."""
import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import WhisperForConditionalGeneration, WhisperProcessor

from speech.data import ManifestASR, collate

MODEL = "openai/whisper-large-v3"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--epochs", type=int, default=10)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)

    processor = WhisperProcessor.from_pretrained(MODEL, language="en", task="transcribe")
    model = WhisperForConditionalGeneration.from_pretrained(MODEL)
    model.config.forced_decoder_ids = None
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())

    dataset = ManifestASR(args.manifest, processor)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        collate_fn=collate, num_workers=4)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for step, (feats, labels) in enumerate(loader):
            feats = feats.to(engine.device, dtype=torch.bfloat16)
            labels = labels.to(engine.device)
            loss = engine(input_features=feats, labels=labels).loss
            engine.backward(loss)
            engine.step()
            if engine.global_rank == 0 and step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        engine.save_checkpoint("checkpoints/whisper_callcentre", tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
