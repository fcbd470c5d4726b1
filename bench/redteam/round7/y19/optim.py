import functools

import torch

make_optimizer = functools.partial(torch.optim.AdamW, lr=1e-4, weight_decay=0.01)
