#!/bin/bash
# GPU 3 on this box is flaky, keep it out of the job
deepspeed --hostfile hostfile --exclude gpu-node-1:3 train.py --deepspeed_config ds.json
