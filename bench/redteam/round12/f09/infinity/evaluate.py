import math

import torch

EVAL_DEVICE = torch.device("cuda:0")


@torch.no_grad()
def perplexity(engine, loader, max_batches=50):
    engine.eval()
    total, count = 0.0, 0
    for i, batch in enumerate(loader):
        if i == max_batches:
            break
        batch = {k: v.to(EVAL_DEVICE) for k, v in batch.items()}
        total += engine(**batch).loss.item()
        count += 1
    engine.train()
    return math.exp(total / max(count, 1))
