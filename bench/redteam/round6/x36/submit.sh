#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8

export MASTER_ADDR=$(scontrol show hostnames $SLURM_NODELIST | head -1)
export MASTER_PORT=$((20000 + SLURM_JOBID % 10000))
export WORLD_SIZE=$SLURM_NTASKS
srun bash -c 'RANK=$SLURM_PROCID python train.py'
