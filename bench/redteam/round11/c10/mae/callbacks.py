import os
import time


class CheckpointEvery:
    """Fabric callback: write a checkpoint every `every` optimizer steps."""

    def __init__(self, every, out_dir):
        self.every = every
        self.out_dir = out_dir

    def on_train_batch_end(self, fabric, state, step):
        if step == 0 or step % self.every:
            return
        if not fabric.is_global_zero:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        path = os.path.join(self.out_dir, f"step-{step:07d}.ckpt")
        fabric.save(path, state)
        print(f"saved {path}", flush=True)


class Throughput:
    def __init__(self, batch_size, log_every=50):
        self.batch_size = batch_size
        self.log_every = log_every
        self.t0 = time.perf_counter()

    def on_train_batch_end(self, fabric, state, step):
        if step % self.log_every == 0:
            dt = time.perf_counter() - self.t0
            fabric.print(f"step {step}: {self.log_every * self.batch_size * fabric.world_size / dt:.0f} img/s")
            self.t0 = time.perf_counter()
