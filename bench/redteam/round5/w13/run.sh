#!/bin/bash
deepspeed --num_gpus 8 sft.py configs/sft_args.json
