#!/bin/bash
accelerate launch --num_processes 4 --num_machines 1 train.py --model_name gpt2-large
