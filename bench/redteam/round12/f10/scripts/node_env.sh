# Settings shared by every launch script on the 8 x A100 / 2 x 48-core training boxes.
# Sourced, not executed.
export NCCL_IB_DISABLE=0
export NCCL_SOCKET_IFNAME=ib0
export TOKENIZERS_PARALLELISM=false
# 96 cores / 8 ranks: each rank's offloaded CPU Adam gets 12 OpenMP threads.
export OMP_NUM_THREADS=12
export HF_HOME=/scratch/hf_cache
