import os

import torch
from torch.nn.parallel import DistributedDataParallel


def wrap_model(model, distributed):
    model = model.cuda()
    if distributed:
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        model = DistributedDataParallel(model, device_ids=[local_rank], find_unused_parameters=True)
    return model
