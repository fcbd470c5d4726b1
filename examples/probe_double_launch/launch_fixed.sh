#!/bin/sh
# GOOD: one launcher. Lightning starts the second rank itself (or use torchrun and let Lightning join).
cd "$(dirname "$0")"
exec python3 train.py
