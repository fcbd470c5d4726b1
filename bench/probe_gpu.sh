#!/bin/bash
# Probe on the 2 x H200 machine: the bad setups of the first report and their fixes, each
# observed by `dslint probe`, with steps/s measured by the job itself (median of the timed steps
# after 3 warm-up steps). Run from the repository root on the GPU machine, after installing the
# carried wheels (see bench/RESULTS.md for the exact command). Results go to $OUT.
#   VARIANTS="collective l_double …"  picks variants; BODY_LIMIT (s) skips what would not fit.
set -u
OUT=${OUT:-/tmp/probe-out}; mkdir -p "$OUT/runs"
export TORCH_EXTENSIONS_DIR=${TORCH_EXTENSIONS_DIR:-/tmp/tex} DS_ACCELERATOR=cuda PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
EX=examples/probe_double_launch
# ds_free/ds_bind/tr_* run the launch lines of $EX/launch_deepspeed.sh and launch_torchrun.sh (and their
# fixes) with the launcher started as `python3 -m …` (the wheel's console scripts are not on PATH there).
# The model of research/gpu-probe.md E2/E3: 12 x Linear(8192, 8192), 805M parameters.
export BENCH_H=${BENCH_H:-8192} BENCH_L=${BENCH_L:-12} BENCH_STEPS=${BENCH_STEPS:-8}
export PL_H=$BENCH_H PL_L=$BENCH_L PL_STEPS=$BENCH_STEPS
LIMIT=${BODY_LIMIT:-540}; START=$(date +%s)
VARIANTS=${VARIANTS:-"snapshot collective l_double ds_free ds_bind tr_omp1 tr_omp16 l_string l_pinned l_pid"}
DSR="python3 -m deepspeed.launcher.runner"
log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/log.txt"; }

# Build DeepSpeedCPUAdam's op once, before any variant needs it.
if [ ! -e "$TORCH_EXTENSIONS_DIR/cpu_adam/cpu_adam.so" ]; then
    log "building cpu_adam"
    python3 -c "from deepspeed.ops.op_builder import CPUAdamBuilder; CPUAdamBuilder().load()" > "$OUT/build.log" 2>&1 &
    BUILD=$!
else
    BUILD=
fi

probe() {  # probe NAME WATCH_S CMD… : dslint probe watches CMD, saves observation and findings
    local name=$1 watch=$2; shift 2
    local d="$OUT/runs/$name"; mkdir -p "$d"
    local left=$(( LIMIT - ($(date +%s) - START) ))
    if [ "$left" -lt $(( watch + 15 )) ]; then log "skip $name: ${left}s left"; echo skipped > "$d/skipped"; return; fi
    log "run $name: $*"
    echo "$*" > "$d/command"
    local t0=$(date +%s.%N)
    BENCH_OUT="$d" timeout $(( watch + 30 )) python3 -m dslint.probe.cli --seconds "$watch" --output-format json \
        --save-observation "$d/obs.json" -- "$@" > "$d/findings.json" 2> "$d/probe.err"
    echo $? > "$d/probe.rc"
    python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 2))" "$(date +%s.%N)" "$t0" > "$d/probe_wall_s"
    log "  $name: rc $(cat "$d/probe.rc"), $(grep -o '"code": "[A-Z0-9]*"' "$d/findings.json" | tr '\n' ' ')"
}

for v in $VARIANTS; do
    case $v in
    snapshot)  # an idle machine: how long one snapshot takes
        mkdir -p "$OUT/runs/snapshot"; t0=$(date +%s.%N)
        python3 -m dslint.probe.cli --seconds 2 --output-format json \
            --save-observation "$OUT/runs/snapshot/obs.json" > "$OUT/runs/snapshot/findings.json" 2> "$OUT/runs/snapshot/probe.err"
        echo $? > "$OUT/runs/snapshot/probe.rc"
        python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 2))" "$(date +%s.%N)" "$t0" > "$OUT/runs/snapshot/wall_s"; log "snapshot: $(cat "$OUT/runs/snapshot/probe.err")";;
    collective)
        mkdir -p "$OUT/runs/collective"; t0=$(date +%s.%N)
        python3 -m dslint.probe.cli --collective --output-format json \
            --save-observation "$OUT/runs/collective/result.json" > "$OUT/runs/collective/findings.json" 2> "$OUT/runs/collective/probe.err"
        echo $? > "$OUT/runs/collective/probe.rc"
        python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 2))" "$(date +%s.%N)" "$t0" > "$OUT/runs/collective/wall_s"; log "collective: wall $(cat "$OUT/runs/collective/wall_s") s"; tail -8 "$OUT/runs/collective/probe.err";;
    *)
        [ -n "$BUILD" ] && { wait "$BUILD"; log "cpu_adam build rc $?"; BUILD=; }
        case $v in
        l_double) probe l_double 130 sh $EX/launch.sh ;;
        l_string) probe l_string 100 sh $EX/launch_once.sh ;;
        l_pinned) probe l_pinned 100 sh $EX/launch_fixed.sh ;;
        l_bound)  probe l_bound 100 env PL_BIND=1 sh $EX/launch_fixed.sh ;;
        ds_free)  probe ds_free 100 $DSR --num_gpus 2 --master_port 29511 $EX/ds_train.py ;;
        ds_bind)  probe ds_bind 100 $DSR --num_gpus 2 --master_port 29512 --bind_cores_to_rank $EX/ds_train.py ;;
        tr_omp1)  probe tr_omp1 100 torchrun --standalone --nproc_per_node 2 $EX/ds_train.py ;;
        tr_omp16) probe tr_omp16 100 env OMP_NUM_THREADS=16 torchrun --standalone --nproc_per_node 2 $EX/ds_train.py ;;
        l_pid)  # --pid and the machine snapshot on a running (fixed) Lightning job, started outside the probe
            mkdir -p "$OUT/runs/l_pid"
            if [ $(( LIMIT - ($(date +%s) - START) )) -lt 90 ]; then log "skip l_pid"; continue; fi
            BENCH_OUT="$OUT/runs/l_pid" sh $EX/launch_fixed.sh > "$OUT/runs/l_pid/job.log" 2>&1 &
            JOB=$!; sleep 45
            python3 -m dslint.probe.cli --pid $JOB --seconds 5 --output-format json --save-observation "$OUT/runs/l_pid/obs.json" \
                > "$OUT/runs/l_pid/findings.json" 2> "$OUT/runs/l_pid/probe.err"; echo $? > "$OUT/runs/l_pid/probe.rc"
            python3 -m dslint.probe.cli --seconds 2 --output-format json --save-observation "$OUT/runs/l_pid/machine.json" \
                > "$OUT/runs/l_pid/machine_findings.json" 2> "$OUT/runs/l_pid/machine.err"
            wait $JOB; log "l_pid: $(cat "$OUT/runs/l_pid/probe.err" | head -3)";;
        esac;;
    esac
done
[ -n "$BUILD" ] && wait "$BUILD"
nvidia-smi --query-gpu=index,uuid,name,driver_version --format=csv > "$OUT/runs/gpus.csv" 2>&1
nvidia-smi topo -m > "$OUT/runs/topo.txt" 2>&1
python3 bench/probe_gpu_summary.py "$OUT/runs" | tee "$OUT/table.md"
tar czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
[ -d "$TORCH_EXTENSIONS_DIR/cpu_adam" ] && tar czf "$OUT/tex.tgz" -C "$TORCH_EXTENSIONS_DIR" cpu_adam 2>/dev/null
exit 0
