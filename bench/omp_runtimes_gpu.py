#!/usr/bin/env python3
"""Does torch.set_num_threads reach DeepSpeedCPUAdam's OpenMP threads? (DSL202's exemption)

Run on the GPU machine (see ../shared/gpu/README.md for installing deepspeed there):
    python3 bench/omp_runtimes_gpu.py            # prints a table, writes $OUT/omp_runtimes.json

One process per variant: torch's default threads, torch.set_num_threads(1) in the script, and
OMP_NUM_THREADS=1 in the environment. Each builds DeepSpeedCPUAdam over 64M fp32 parameters and
times 5 steps, recording the process's CPU time / wall time during the steps (how many cores the
step used), the threads alive during the step, and which libgomp copies are mapped.
"""
import json
import os
import subprocess
import sys

VARIANT = r'''
import json, os, sys, threading, time
import torch
mode = sys.argv[1]
if mode == "set_num_threads_1":
    torch.set_num_threads(1)
from deepspeed.ops.adam import DeepSpeedCPUAdam
params = [torch.nn.Parameter(torch.zeros(64 * 2**20))]
params[0].grad = torch.randn_like(params[0])
opt = DeepSpeedCPUAdam(params, lr=1e-3)
opt.step()  # warm-up (and the op's thread pool)
peak = [0]
stop = threading.Event()
def count():
    while not stop.is_set():
        peak[0] = max(peak[0], len(os.listdir("/proc/self/task")))
        time.sleep(0.005)
t = threading.Thread(target=count); t.start()
c0, w0 = time.process_time(), time.perf_counter()
for _ in range(5):
    opt.step()
cpu, wall = time.process_time() - c0, time.perf_counter() - w0
stop.set(); t.join()
maps = {line.split()[-1] for line in open("/proc/self/maps") if "gomp" in line or "libiomp" in line}
print(json.dumps({"mode": mode, "torch_threads": torch.get_num_threads(), "omp_env": os.environ.get("OMP_NUM_THREADS"),
                  "step_wall_s": wall / 5, "cores_used": cpu / wall, "peak_threads": peak[0],
                  "openmp_runtimes": sorted(maps)}))
'''


def main() -> int:
    rows = []
    for mode, env_extra in (("default", {}), ("set_num_threads_1", {}), ("omp_env_1", {"OMP_NUM_THREADS": "1"})):
        env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
        env.update(env_extra)
        done = subprocess.run([sys.executable, "-c", VARIANT, mode], env=env, capture_output=True, text=True, timeout=400)
        line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append({"mode": mode, "error": done.stderr[-2000:]})
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "omp_runtimes.json"), "w") as f:
            json.dump(rows, f, indent=2)
    print("| variant | torch threads | OMP_NUM_THREADS | step s | cores used | peak threads | OpenMP runtimes mapped |")
    print("|---|---:|---|---:|---:|---:|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['mode']} | error: {r['error'][-300:]!r} |")
            continue
        print(f"| {r['mode']} | {r['torch_threads']} | {r['omp_env']} | {r['step_wall_s']:.3f} | {r['cores_used']:.1f} | "
              f"{r['peak_threads']} | {', '.join(os.path.basename(p) for p in r['openmp_runtimes'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
