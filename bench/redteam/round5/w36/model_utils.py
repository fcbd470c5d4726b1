import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def build_model():
    net = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(12)])
    return FSDP(net, use_orig_params=True, device_id=torch.cuda.current_device())
