import contextlib

import torch


@contextlib.contextmanager
def eval_mode(model):
    was = model.training
    model.eval()
    with torch.no_grad():
        yield model
    model.train(was)
