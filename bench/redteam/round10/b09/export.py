"""Final export of a transformers Trainer run: weights + a small manifest."""
import json
import os


def save_final(trainer, out_dir: str):
    trainer.save_model(out_dir)
    if trainer.is_world_process_zero():
        with open(os.path.join(out_dir, "manifest.json"), "w") as f:
            json.dump({"global_step": trainer.state.global_step}, f)
