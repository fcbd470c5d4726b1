import torch

from trainer import Trainer

if __name__ == "__main__":
    Trainer(torch.nn.Linear(64, 64)).fit(1000)
