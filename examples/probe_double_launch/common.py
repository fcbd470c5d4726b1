"""What train.py and train_fixed.py share: the model (12 x Linear(8192, 8192) in the bench), data, step timer.

Knobs (environment): PL_H / PL_L (width and depth of the model), PL_STEPS (timed steps after 3
warm-up steps), BENCH_OUT (folder for the step times of each world's rank 0), PL_BIND=1 (each
rank on its own half of the cores, set before torch starts OpenMP: the bound baseline).
"""
import json
import os
import time

if os.environ.get("PL_BIND") == "1":  # bench only: give each rank its own half of the cores, before torch starts OpenMP
    _cores = sorted(os.sched_getaffinity(0))
    _n, _r = 2, int(os.environ.get("LOCAL_RANK", "0"))
    os.sched_setaffinity(0, _cores[_r * len(_cores) // _n:(_r + 1) * len(_cores) // _n])

import torch
from torch import nn

import lightning as L
from deepspeed.ops.adam import DeepSpeedCPUAdam

try:  # the probe's in-process report; a no-op unless `dslint probe -- …` runs this
    from dslint.probe.inprocess import ProbeCallback
    CALLBACKS = [ProbeCallback()]
except ImportError:
    CALLBACKS = []

H = int(os.environ.get("PL_H", "1024"))
LAYERS = int(os.environ.get("PL_L", "4"))
WARMUP, STEPS = 3, int(os.environ.get("PL_STEPS", "10"))
MICRO, SEQ = 8, 512


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(*[m for _ in range(LAYERS) for m in (nn.Linear(H, H), nn.GELU())])

    def training_step(self, batch, _):
        x, y = batch
        return nn.functional.mse_loss(self.body(x), y)

    def configure_optimizers(self):
        return DeepSpeedCPUAdam(self.parameters(), lr=1e-5, adamw_mode=True)


class Data(torch.utils.data.Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(MICRO, SEQ, H, generator=g)
        self.y = torch.randn(MICRO, SEQ, H, generator=g)

    def __len__(self):
        return (WARMUP + STEPS) * 64

    def __getitem__(self, i):
        return self.x[i % MICRO], self.y[i % MICRO]


class StepTimer(L.Callback):
    def __init__(self):
        self.times = []

    def on_train_batch_start(self, trainer, *_):
        torch.cuda.synchronize()
        self.t = time.perf_counter()

    def on_train_batch_end(self, trainer, *_):
        torch.cuda.synchronize()
        self.times.append(time.perf_counter() - self.t)
        if len(self.times) >= WARMUP + STEPS:
            trainer.should_stop = True
            if trainer.global_rank == 0 and os.environ.get("BENCH_OUT"):
                timed = sorted(self.times[WARMUP:])
                rec = {"pid": os.getpid(), "master_port": os.environ.get("MASTER_PORT"), "world_size": trainer.world_size,
                       "step_s": self.times, "median_step_s": timed[len(timed) // 2],
                       "omp": os.environ.get("OMP_NUM_THREADS"), "torch_threads": torch.get_num_threads()}
                os.makedirs(os.environ["BENCH_OUT"], exist_ok=True)
                with open(os.path.join(os.environ["BENCH_OUT"], f"steps-{os.getpid()}.json"), "w") as f:
                    json.dump(rec, f)


def loader():
    return torch.utils.data.DataLoader(Data(), batch_size=MICRO)


def trainer_args():
    return dict(
        max_steps=WARMUP + STEPS, logger=False, enable_checkpointing=False, enable_progress_bar=False,
        enable_model_summary=False, callbacks=[StepTimer(), *CALLBACKS],
    )
