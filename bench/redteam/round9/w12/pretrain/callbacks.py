import os
import shutil


class PeriodicCheckpoint:
    def __init__(self, save_dir, every=2000, keep=3):
        self.save_dir = save_dir
        self.every = every
        self.keep = keep

    def _prune(self):
        tags = sorted(d for d in os.listdir(self.save_dir) if d.startswith("step"))
        for tag in tags[:-self.keep]:
            shutil.rmtree(os.path.join(self.save_dir, tag), ignore_errors=True)

    def on_step_end(self, loop):
        if loop.step % self.every:
            return
        if loop.global_rank != 0:
            return
        os.makedirs(self.save_dir, exist_ok=True)
        loop.engine.save_checkpoint(self.save_dir, tag=f"step{loop.step:07d}",
                                    client_state={"step": loop.step})
        self._prune()
