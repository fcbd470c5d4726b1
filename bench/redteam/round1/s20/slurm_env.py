import os


def setup_from_slurm():
    os.environ.setdefault("RANK", os.environ["SLURM_PROCID"])
    os.environ.setdefault("LOCAL_RANK", os.environ["SLURM_LOCALID"])
    os.environ.setdefault("WORLD_SIZE", os.environ["SLURM_NTASKS"])
