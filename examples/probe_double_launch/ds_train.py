"""DeepSpeed ZeRO-2 Offload with DeepSpeedCPUAdam, started by a launcher.

Bad launches (see bench/probe_gpu.sh):
  deepspeed --num_gpus 2 ds_train.py                 every rank's OpenMP pool takes every core
  torchrun --nproc_per_node 2 ds_train.py            torchrun sets OMP_NUM_THREADS=1: CPU Adam on one core
Fixes:
  deepspeed --num_gpus 2 --bind_cores_to_rank ds_train.py
  OMP_NUM_THREADS=16 torchrun --nproc_per_node 2 ds_train.py   (cores / ranks)
Knobs: BENCH_H, BENCH_L (model), BENCH_STEPS (timed steps after 3 warm-up), BENCH_OUT.
"""
import json
import os
import time

try:  # the probe's in-process report; a no-op unless `dslint probe -- …` runs this
    import dslint.probe.inprocess  # noqa: F401
except ImportError:
    pass
import deepspeed
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam
from torch import nn

H = int(os.environ.get("BENCH_H", "1024"))
LAYERS = int(os.environ.get("BENCH_L", "4"))
WARMUP, STEPS = 3, int(os.environ.get("BENCH_STEPS", "10"))
MICRO, SEQ = 8, 512
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    deepspeed.init_distributed()
    model = nn.Sequential(*[m for _ in range(LAYERS) for m in (nn.Linear(H, H), nn.GELU())])
    opt = DeepSpeedCPUAdam(model.parameters(), lr=1e-5, adamw_mode=True)
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=os.path.join(HERE, "ds_config.json"))
    g = torch.Generator(device="cuda").manual_seed(local_rank)
    x = torch.randn(MICRO, SEQ, H, device="cuda", dtype=torch.bfloat16, generator=g)
    y = torch.randn(MICRO, SEQ, H, device="cuda", dtype=torch.bfloat16, generator=g)
    times = []
    for _ in range(WARMUP + STEPS):
        torch.cuda.synchronize()
        t = time.perf_counter()
        loss = nn.functional.mse_loss(engine(x), y)
        engine.backward(loss)
        engine.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    if engine.global_rank == 0 and os.environ.get("BENCH_OUT"):
        timed = sorted(times[WARMUP:])
        rec = {"pid": os.getpid(), "master_port": os.environ.get("MASTER_PORT"), "world_size": engine.world_size,
               "step_s": times, "median_step_s": timed[len(timed) // 2], "omp": os.environ.get("OMP_NUM_THREADS"),
               "torch_threads": torch.get_num_threads(), "affinity": len(os.sched_getaffinity(0))}
        os.makedirs(os.environ["BENCH_OUT"], exist_ok=True)
        with open(os.path.join(os.environ["BENCH_OUT"], f"steps-{os.getpid()}.json"), "w") as f:
            json.dump(rec, f)


if __name__ == "__main__":
    main()
