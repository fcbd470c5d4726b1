import functools

import torch


def freeze(module):
    """Put a model into inference-only use: eval mode and no parameter records gradients."""
    module.eval()
    module.requires_grad_(False)
    return module


def evaluation(fn):
    """Run fn(model, ...) in eval mode under inference_mode, restoring the model's mode after."""

    @functools.wraps(fn)
    def wrapper(model, *args, **kwargs):
        was_training = model.training
        model.eval()
        try:
            with torch.inference_mode():
                return fn(model, *args, **kwargs)
        finally:
            model.train(was_training)

    return wrapper
