#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks=8
#SBATCH --gres=gpu:4
#SBATCH --cpus-per-task=8

export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)
export MASTER_PORT=$((10000 + SLURM_JOB_ID % 50000))
srun python train_gan.py --config configs/gan.yaml
