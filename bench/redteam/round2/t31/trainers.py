import deepspeed
import torch


class BaseTrainer:
    def __init__(self, model):
        self.model = model

    def fit(self, steps):
        for step in range(steps):
            x = torch.randn(4, 1024, device="cuda")
            self.train_step(x)


class DSTrainer(BaseTrainer):
    def __init__(self, model, config):
        engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
        super().__init__(engine)
        self.optimizer = optimizer

    def train_step(self, x):
        loss = self.model(x).float().pow(2).mean()
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
