from .spawn import run_distributed
