import functools

import torch


def no_autograd(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with torch.inference_mode():
            return fn(*args, **kwargs)
    return wrapper


def ctc_greedy(logits, blank=0):
    best = logits.argmax(-1)
    out = []
    for row in best.tolist():
        seq, prev = [], blank
        for tok in row:
            if tok != prev and tok != blank:
                seq.append(tok)
            prev = tok
        out.append(seq)
    return out
