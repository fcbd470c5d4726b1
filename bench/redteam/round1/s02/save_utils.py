import os

import torch


def save_model_weights(engine, output_dir, global_rank):
    """Write a plain PyTorch state dict so the model can be loaded without DeepSpeed."""
    if global_rank != 0:
        return
    os.makedirs(output_dir, exist_ok=True)
    torch.save(engine.module.state_dict(), os.path.join(output_dir, "pytorch_model.bin"))
