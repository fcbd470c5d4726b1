"""Checkpoint I/O shared by the trainer and the export tools."""
import os
import shutil

import torch


def save_checkpoint(state, is_best, output_dir, filename="checkpoint.pth"):
    path = os.path.join(output_dir, filename)
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(output_dir, "model_best.pth"))


def resume_from(path, model, optimizer, scaler):
    """Resume in every rank of the training job: load on the CPU, copy into the live modules."""
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scaler.load_state_dict(ckpt["scaler"])
    return ckpt["epoch"] + 1, ckpt.get("best_acc1", 0.0)


def load_weights(path):
    """Weights only, for the export/benchmark tools (they run on one GPU, where the trainer's rank 0 saved)."""
    ckpt = torch.load(path)
    return ckpt.get("model", ckpt)
