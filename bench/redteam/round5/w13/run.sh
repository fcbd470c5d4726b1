#!/bin/bash
torchrun --nproc_per_node=8 sft.py configs/sft_args.json
