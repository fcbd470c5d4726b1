#!/bin/bash
python train.py --world_size 4
