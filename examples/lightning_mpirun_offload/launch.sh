#!/bin/bash
mpirun -np 2 python train.py
