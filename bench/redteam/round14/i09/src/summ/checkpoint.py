import json
import os

import torch
import torch.distributed as dist

from summ import dist_utils


def save(engine, output_dir, step):
    engine.save_checkpoint(output_dir, tag=f"step{step}", client_state={"step": step})
    if dist_utils.is_main_process():
        with open(os.path.join(output_dir, "progress.json"), "w") as f:
            json.dump({"step": step}, f)
    dist.barrier()


def export_weights(engine, path):
    if dist_utils.is_main_process():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save(engine.module.state_dict(), path)
    dist.barrier()
