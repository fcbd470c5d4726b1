"""Table of bench/probe_gpu.sh's results: steps/s per world, probe findings, snapshot timing."""
import glob
import json
import os
import statistics
import sys

NAMES = {
    "l_double": "Lightning, launch.sh starts train.py twice (2 worlds), deepspeed_stage_2_offload",
    "l_string": "Lightning, one launch, strategy string deepspeed_stage_2_offload (pin_memory=False)",
    "l_pinned": "Lightning, one launch, DeepSpeedStrategy(stage=2, offload_optimizer=True, pin_memory=True)",
    "l_bound": "Lightning, one launch, pin_memory=True, each rank bound to its own 16 cores (PL_BIND=1)",
    "ds_free": "deepspeed launcher, 2 ranks, no --bind_cores_to_rank",
    "ds_bind": "deepspeed launcher, 2 ranks, --bind_cores_to_rank",
    "tr_omp1": "torchrun, 2 ranks, default OMP_NUM_THREADS=1",
    "tr_omp16": "torchrun, 2 ranks, OMP_NUM_THREADS=16",
}


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def main(root):
    rows = ["| variant | worlds | median step s (per world) | steps/s (per world) | probe findings | snapshots (median / max ms) | probe wall s |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in NAMES:
        d = os.path.join(root, name)
        if not os.path.isdir(d):
            continue
        if os.path.exists(os.path.join(d, "skipped")):
            rows.append(f"| {name} | skipped (time) | | | | | |")
            continue
        steps = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(d, "steps-*.json")))]
        meds = [statistics.median(s["step_s"][3:]) for s in steps]  # 3 warm-up steps
        med = ", ".join(f"{m:.3f}" for m in meds) or "no timed steps"
        sps = ", ".join(f"{1 / m:.2f}" for m in meds) or "-"
        try:
            codes = sorted({f["code"] for f in json.load(open(os.path.join(d, "findings.json")))})
        except (OSError, ValueError):
            codes = ["(no output)"]
        try:
            obs = json.load(open(os.path.join(d, "obs.json")))
            durs = [s["duration_s"] for s in obs["snapshots"]]
            snap = f"{len(durs)}: {statistics.median(durs) * 1000:.0f} / {max(durs) * 1000:.0f}"
        except (OSError, ValueError, KeyError):
            snap = "-"
        rows.append(f"| {name} | {len(steps)} | {med} | {sps} | {' '.join(codes) or 'none'} (rc {read(os.path.join(d, 'probe.rc'))}) | {snap} | {read(os.path.join(d, 'probe_wall_s'), '-')} |")
    for extra in ("snapshot", "collective", "l_pid"):
        d = os.path.join(root, extra)
        if os.path.isdir(d):
            rows.append(f"\n{extra}: rc {read(os.path.join(d, 'probe.rc'))}, wall {read(os.path.join(d, 'wall_s'), '-')} s")
            rows.append(read(os.path.join(d, "probe.err"), ""))
    print("\n".join(rows))


if __name__ == "__main__":
    main(sys.argv[1])
