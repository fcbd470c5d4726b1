import torch


class Evaluator:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader

    def evaluate(self):
        self.model.eval()
        total, n = 0.0, 0
        with torch.autocast("cuda", dtype=torch.bfloat16):
            for x, y in self.loader:
                out = self.model(x.cuda())
                total = total + torch.nn.functional.cross_entropy(out, y.cuda())
                n += 1
        self.model.train()
        return total / n
