import math

import torch
import torch.distributed as dist


def evaluate(engine, loader):
    """Mean validation loss and perplexity over the whole validation set (all ranks)."""
    engine.eval()
    total_loss = torch.zeros((), device=engine.device)
    batches = 0
    for batch in loader:
        batch = {k: v.to(engine.device) for k, v in batch.items()}
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            out = engine(**batch)
        total_loss += out.loss
        batches += 1
    dist.all_reduce(total_loss)
    mean = total_loss.item() / (batches * dist.get_world_size())
    engine.train()
    return mean, math.exp(mean)
