import argparse
import os
import string

import torch
import torch.distributed as dist
import torchaudio
from torch.nn.parallel import DistributedDataParallel as DDP

from data.datamodule import SpeechDataModule
from engine.callbacks import ThroughputLogger, WarmupCosine
from engine.trainer import Trainer

VOCAB = {c: i + 1 for i, c in enumerate(" '" + string.ascii_lowercase)}  # 0 is the CTC blank


class ConformerCTC(torch.nn.Module):
    def __init__(self, n_mels=80, d_model=256, vocab_size=len(VOCAB) + 1):
        super().__init__()
        self.proj = torch.nn.Linear(n_mels, d_model)
        self.encoder = torchaudio.models.Conformer(input_dim=d_model, num_heads=4, ffn_dim=1024,
                                                   num_layers=12, depthwise_conv_kernel_size=31)
        self.head = torch.nn.Linear(d_model, vocab_size)

    def forward(self, feats, lengths):
        x, lengths = self.encoder(self.proj(feats), lengths)
        return self.head(x).log_softmax(-1), lengths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--val-manifest", required=True)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)

    model = DDP(ConformerCTC().to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=1e-3)
    dm = SpeechDataModule(args.manifest, args.val_manifest, VOCAB, args.batch_size)
    callbacks = [WarmupCosine(args.lr, warmup_epochs=5, total_epochs=args.epochs), ThroughputLogger()]
    Trainer(model, optimizer, dm, device, args.epochs, callbacks=callbacks).fit()

    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), "conformer_ctc.pt")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
