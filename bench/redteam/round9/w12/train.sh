#!/usr/bin/env bash
set -e
deepspeed --num_gpus 8 main.py --max_steps 50000
