import torch


class GPT(torch.nn.Module):
    def __init__(self, n_layer, n_embd):
        super().__init__()
        self.blocks = torch.nn.ModuleList(torch.nn.Linear(n_embd, n_embd) for _ in range(n_layer))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x.pow(2).mean()
