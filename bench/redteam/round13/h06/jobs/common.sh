# Sourced by the batch scripts in jobs/: software stack and rendezvous for srun-started ranks.
module purge
module load cuda/12.4 nccl/2.21
source "$HOME/miniforge3/etc/profile.d/conda.sh"
conda activate vision

export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_PORT=$(( 15000 + SLURM_JOB_ID % 10000 ))
export WORLD_SIZE=$SLURM_NTASKS
export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
export NCCL_ASYNC_ERROR_HANDLING=1
