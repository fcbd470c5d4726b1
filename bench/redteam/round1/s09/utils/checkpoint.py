import os

import torch


def save_checkpoint(path, model, optimizer, epoch):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)


def resume(path, model, optimizer):
    if not os.path.isfile(path):
        return 0
    ckpt = torch.load(path)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["epoch"] + 1
