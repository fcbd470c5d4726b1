import deepspeed
import torch

from trainers import DSTrainer

if __name__ == "__main__":
    deepspeed.init_distributed()
    DSTrainer(torch.nn.Linear(1024, 1024), "ds.json").fit(1000)
