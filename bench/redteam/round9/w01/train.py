import os

import torch
import torch.distributed as dist
import torch.nn as nn
from absl import app, flags
from ml_collections import config_flags
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

FLAGS = flags.FLAGS
config_flags.DEFINE_config_file("config", "configs/default.py", "Training configuration.")


def build_model(cfg):
    layers = [nn.Linear(cfg.width, cfg.width) for _ in range(cfg.depth)]
    return nn.Sequential(*layers, nn.GELU(), nn.Linear(cfg.width, cfg.num_classes))


def main(argv):
    del argv
    config = FLAGS.config
    torch.manual_seed(config.seed)
    dist.init_process_group("nccl")
    device = torch.device(config.device)
    torch.cuda.set_device(device)

    model = DDP(build_model(config.model).to(device), device_ids=[device.index])
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate,
                                  weight_decay=config.weight_decay)
    data = TensorDataset(torch.randn(50000, config.model.width),
                         torch.randint(0, config.model.num_classes, (50000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=config.batch_size, sampler=sampler, num_workers=4)

    for epoch in range(config.num_epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    app.run(main)
