#!/bin/bash
torchrun --nproc_per_node=4 -m pkg.train --epochs 10
