import json
import os

import torch.distributed as dist
from transformers import TrainerCallback


class ExportOnSave(TrainerCallback):
    """Writes a small manifest next to every checkpoint, then lets the ranks go on."""

    def on_save(self, args, state, control, **kwargs):
        folder = os.path.join(args.output_dir, f"checkpoint-{state.global_step}")
        if state.is_world_process_zero:
            with open(os.path.join(folder, "manifest.json"), "w") as f:
                json.dump({"step": state.global_step, "loss": state.log_history[-1:]}, f)
            if dist.is_initialized():
                dist.barrier()
        return control
