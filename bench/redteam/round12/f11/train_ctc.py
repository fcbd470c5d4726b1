"""wav2vec2-large CTC fine-tuning on LibriSpeech 960h across the lab workstations (ZeRO-2 + CPU offload)."""
import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import Wav2Vec2ForCTC, Wav2Vec2Processor

from asr.data import LibriManifest, pad_collate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--manifest", default="manifests/train_960.jsonl")
    parser.add_argument("--epochs", type=int, default=20)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)
    processor = Wav2Vec2Processor.from_pretrained("facebook/wav2vec2-large-lv60")
    model = Wav2Vec2ForCTC.from_pretrained("facebook/wav2vec2-large-lv60", ctc_loss_reduction="mean",
                                           pad_token_id=processor.tokenizer.pad_token_id)
    model.freeze_feature_encoder()
    engine, _, _, _ = deepspeed.initialize(args=args, model=model,
                                           model_parameters=[p for p in model.parameters() if p.requires_grad])

    dataset = LibriManifest(args.manifest, processor)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        collate_fn=pad_collate, num_workers=6, pin_memory=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for feats, labels in loader:
            out = engine(input_values=feats.to(engine.device, torch.bfloat16), labels=labels.to(engine.device))
            engine.backward(out.loss)
            engine.step()
        engine.save_checkpoint("checkpoints/w2v2_ctc", tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
