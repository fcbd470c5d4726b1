import json
import os

from chatft import dist_utils


def save(engine, output_dir, step, client_state=None):
    if not dist_utils.is_main_process():
        return
    os.makedirs(output_dir, exist_ok=True)
    engine.save_checkpoint(output_dir, tag=f"step_{step}", client_state=client_state or {})
    with open(os.path.join(output_dir, "trainer_state.json"), "w") as f:
        json.dump({"last_step": step}, f)
