import os

import deepspeed
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def build_engine(model, config_path):
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(model.to(local_rank), device_ids=[local_rank])
    engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config_path)
    return engine
