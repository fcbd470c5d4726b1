import json
import os


def export_artifacts(accelerator, model, metrics, out_dir):
    if not accelerator.is_main_process:
        return
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "metrics.json"), "w") as f:
        json.dump(metrics, f)
    accelerator.unwrap_model(model).save_pretrained(out_dir)
    accelerator.wait_for_everyone()
