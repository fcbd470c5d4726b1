#!/usr/bin/env bash
# Head node of the Ray cluster: 4 learners, one GPU each.
set -euo pipefail
ray status >/dev/null
python driver.py --num-learners 4 --iterations 500 --rollout-dir /scratch/rollouts/atari
