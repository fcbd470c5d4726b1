"""Checkpoint helpers shared by train.py and the notebooks."""
import torch


def load_checkpoint(model, path, optimizer=None, lr_scheduler=None, scaler=None, map_location="cuda:0",
                    strict=True):
    checkpoint = torch.load(path, map_location=map_location, weights_only=False)
    state = checkpoint["model"] if "model" in checkpoint else checkpoint
    missing, unexpected = model.load_state_dict(state, strict=strict)
    if missing or unexpected:
        print(f"missing keys: {missing}\nunexpected keys: {unexpected}")
    if optimizer is not None and "optimizer" in checkpoint:
        optimizer.load_state_dict(checkpoint["optimizer"])
    if lr_scheduler is not None and "lr_scheduler" in checkpoint:
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
    if scaler is not None and "scaler" in checkpoint:
        scaler.load_state_dict(checkpoint["scaler"])
    return checkpoint.get("epoch", -1) + 1
