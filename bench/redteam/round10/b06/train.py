"""ZeRO-2 offload pretraining; settings in conf/train.yaml (OmegaConf), DeepSpeed block handed over as a dict."""
import os

import deepspeed
import torch
import torch.nn.functional as F
from omegaconf import OmegaConf
from torch.utils.data import DataLoader, DistributedSampler

from dataset import PackedTokens


def build_model(m) -> torch.nn.Module:
    layer = torch.nn.TransformerEncoderLayer(m.hidden, nhead=m.heads, dim_feedforward=4 * m.hidden, batch_first=True)
    return torch.nn.Sequential(torch.nn.Embedding(m.vocab, m.hidden), torch.nn.TransformerEncoder(layer, m.layers),
                               torch.nn.Linear(m.hidden, m.vocab, bias=False))


def main():
    cfg = OmegaConf.load("conf/train.yaml")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed()

    model = build_model(cfg.model)
    ds_config = OmegaConf.to_container(cfg.deepspeed, resolve=True)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)

    dataset = PackedTokens(cfg.data.path, cfg.data.seq_len)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=cfg.deepspeed.train_micro_batch_size_per_gpu, sampler=sampler,
                        num_workers=cfg.data.num_workers, pin_memory=True)
    for epoch in range(cfg.run.epochs):
        sampler.set_epoch(epoch)
        for ids, labels in loader:
            ids, labels = ids.to(engine.device), labels.to(engine.device)
            logits = engine(ids)
            loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
            engine.backward(loss)
            engine.step()
        engine.save_checkpoint(cfg.run.save_dir, tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
