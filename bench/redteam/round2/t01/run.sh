#!/bin/bash
deepspeed --num_gpus 8 finetune.py
