import os
import shutil


class PeriodicCheckpointer:
    """Writes `step_<n>` folders every `every` optimizer steps and keeps the newest `keep`."""

    def __init__(self, output_dir: str, every: int, keep: int = 2):
        self.output_dir = output_dir
        self.every = every
        self.keep = keep

    def _existing(self):
        if not os.path.isdir(self.output_dir):
            return []
        names = [d for d in os.listdir(self.output_dir) if d.startswith("step_")]
        return sorted(names, key=lambda d: int(d.split("_")[1]))

    def maybe_save(self, accelerator, step: int):
        if self.every <= 0 or step % self.every != 0:
            return None
        # only one process touches the output folder
        if not accelerator.is_main_process:
            return None
        path = os.path.join(self.output_dir, f"step_{step}")
        accelerator.save_state(path)
        for old in self._existing()[: -self.keep]:
            shutil.rmtree(os.path.join(self.output_dir, old), ignore_errors=True)
        accelerator.print(f"saved state to {path}")
        return path
