#!/bin/bash
deepspeed --num_gpus 4 finetune_summarize.py
