#!/bin/bash
deepspeed --num_gpus 8 --module pkg.pretrain --deepspeed_config configs/zero2_offload.json
