import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP

from asr import dist as dist_utils
from asr.data import build_dataloader
from asr.model import CTCBiLSTM


@torch.no_grad()
def dev_loss(model, loader, device):
    model.eval()
    total = torch.zeros(2, device=device)
    for feats, feat_lens, tokens, token_lens in loader:
        feats, tokens = feats.to(device), tokens.to(device)
        log_probs, out_lens = model(feats, feat_lens.to(device))
        loss = F.ctc_loss(log_probs.transpose(0, 1), tokens, out_lens, token_lens.to(device), reduction="sum",
                          zero_infinity=True)
        total += torch.stack([loss, token_lens.sum().to(device).float()])
    dist.all_reduce(total)
    model.train()
    return (total[0] / total[1]).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="conf/librispeech_100.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    local_rank = dist_utils.init()
    device = torch.device("cuda", local_rank)
    train_loader = build_dataloader(cfg["data"], is_train=True)
    dev_loader = build_dataloader(cfg["data"], is_train=False)

    model = DDP(CTCBiLSTM(vocab_size=len(cfg["data"]["vocab"])).to(device), device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    for epoch in range(cfg["epochs"]):
        for feats, feat_lens, tokens, token_lens in train_loader:
            feats, tokens = feats.to(device, non_blocking=True), tokens.to(device, non_blocking=True)
            log_probs, out_lens = model(feats, feat_lens.to(device))
            loss = F.ctc_loss(log_probs.transpose(0, 1), tokens, out_lens, token_lens.to(device), zero_infinity=True)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
        loss_dev = dev_loss(model, dev_loader, device)
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: train {loss.item():.3f} dev {loss_dev:.3f}", flush=True)
            torch.save(model.module.state_dict(), f"exp/ctc_bilstm_ep{epoch}.pt")


if __name__ == "__main__":
    main()
