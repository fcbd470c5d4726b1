# Every Slurm task is given exactly one GPU (--gpus-per-task=1): it is cuda:0 in that task.
DEVICE = "cuda:0"
BATCH_SIZE = 32
EPOCHS = 12
