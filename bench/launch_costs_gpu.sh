#!/bin/bash
# What two launch-layer rules claim, measured on the 1 x H200 kind (16 cores): the job of
# examples/probe_double_launch/ds_train.py (DeepSpeed ZeRO-2, DeepSpeedCPUAdam offload) with one rank,
#   omp1    OMP_NUM_THREADS=1 exported before the launch (DSL202's shape: CPU Adam on one core)
#   omp16   OMP_NUM_THREADS=16 (all cores of the machine for the one rank)
#   omp8    OMP_NUM_THREADS=8, one world (control for the next row)
#   worlds2 two torchrun worlds on the same GPU at once, OMP 8 each (several worlds from `srun torchrun`
#           with more than one task per node: DSL704/DSL701's shape)
# Each job reports the median of its timed steps (after 3 warm-up steps). Run from the repository
# root on the GPU machine after installing the carried wheels (bench/RESULTS.md has the command).
set -u
OUT=${OUT:-/tmp/launch-costs}; mkdir -p "$OUT"
export TORCH_EXTENSIONS_DIR=${TORCH_EXTENSIONS_DIR:-/tmp/tex} DS_ACCELERATOR=cuda PYTHONUNBUFFERED=1
export BENCH_H=${BENCH_H:-8192} BENCH_L=${BENCH_L:-12} BENCH_STEPS=${BENCH_STEPS:-8}
EX=examples/probe_double_launch/ds_train.py
START=$(date +%s)
log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/log.txt"; }
log "building cpu_adam"
python3 -c "from deepspeed.ops.op_builder import CPUAdamBuilder; CPUAdamBuilder().load()" > "$OUT/build.log" 2>&1 || { log "build failed"; tail -5 "$OUT/build.log"; exit 1; }
run() {  # run NAME OMP PORT
    mkdir -p "$OUT/$1"
    BENCH_OUT="$OUT/$1" OMP_NUM_THREADS=$2 timeout 240 python3 -m torch.distributed.run --nnodes 1 --nproc_per_node 1 \
        --master_addr 127.0.0.1 --master_port "$3" "$EX" > "$OUT/$1/log.txt" 2>&1
}
for v in "omp1 1 29611" "omp16 16 29612" "omp8 8 29613"; do set -- $v; log "run $1"; run "$@"; done
log "run worlds2"; run worlds2 8 29614 & run worlds2 8 29615 & wait
log done
python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
print(f"{'variant':8} {'median step s (each world)':30} torch threads")
for name in ("omp1", "omp16", "omp8", "worlds2"):
    recs = [json.loads(p.read_text()) for p in sorted((out / name).glob("steps-*.json"))]
    steps = ", ".join("%.3f" % r["median_step_s"] for r in recs) or "no result"
    print(f"{name:8} {steps:30} " + ", ".join(str(r["torch_threads"]) for r in recs))
PY
