#!/bin/sh
# One launcher: Lightning starts the second rank itself (one world). Still pin_memory=False.
cd "$(dirname "$0")"
exec python3 train.py
