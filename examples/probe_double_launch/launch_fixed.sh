#!/bin/sh
# GOOD: one launcher (Lightning starts rank 1 itself) and pinned offload buffers.
cd "$(dirname "$0")"
exec python3 train_fixed.py
