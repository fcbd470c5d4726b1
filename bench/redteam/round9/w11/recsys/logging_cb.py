import json
import os

from recsys.distributed import reduce_mean


class JsonlLogger:
    def __init__(self, path, every=100):
        self.path = path
        self.every = every

    def on_step(self, trainer, step, logs):
        if step % self.every:
            return
        if not trainer.is_main:
            return
        record = {name: reduce_mean(value) for name, value in logs.items()}
        record["step"] = step
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")
