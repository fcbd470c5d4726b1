import functools
import glob
import os

import torch

load_cpu = functools.partial(torch.load, map_location="cpu", weights_only=False)


def latest(run_dir):
    paths = sorted(glob.glob(os.path.join(run_dir, "step_*.pt")))
    return paths[-1] if paths else None


def save(run_dir, step, model, optimizer, scaler):
    os.makedirs(run_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "step": step},
               os.path.join(run_dir, f"step_{step:08d}.pt"))


def resume(run_dir, model, optimizer, scaler):
    path = latest(run_dir)
    if path is None:
        return 0
    state = load_cpu(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scaler.load_state_dict(state["scaler"])
    return state["step"]
