import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from parallel.groups import tp_group, tp_rank, tp_world_size


class _CopyToTP(torch.autograd.Function):
    """Identity forward; all-reduce of the input gradient over the TP group."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        dist.all_reduce(grad, group=tp_group())
        return grad


class _ReduceFromTP(torch.autograd.Function):
    """All-reduce of the partial outputs over the TP group; identity backward."""

    @staticmethod
    def forward(ctx, x):
        x = x.clone()
        dist.all_reduce(x, group=tp_group())
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


def _shard(full: torch.Tensor, dim: int) -> nn.Parameter:
    return nn.Parameter(full.chunk(tp_world_size(), dim=dim)[tp_rank()].contiguous())


class ParallelMLP(nn.Module):
    """Column-parallel fc1, row-parallel fc2 (each TP rank holds 1/tp of the hidden units)."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        w1, w2 = torch.empty(d_ff, d_model), torch.empty(d_model, d_ff)
        nn.init.xavier_uniform_(w1)
        nn.init.xavier_uniform_(w2)
        self.w1 = _shard(w1, dim=0)
        self.w2 = _shard(w2, dim=1)
        self.b2 = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        h = F.gelu(F.linear(_CopyToTP.apply(x), self.w1))
        return _ReduceFromTP.apply(F.linear(h, self.w2)) + self.b2


class TinyLM(nn.Module):
    def __init__(self, vocab: int, d_model: int = 1024, d_ff: int = 4096, n_layers: int = 8):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.norms = nn.ModuleList(nn.LayerNorm(d_model) for _ in range(n_layers))
        self.mlps = nn.ModuleList(ParallelMLP(d_model, d_ff) for _ in range(n_layers))
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for norm, mlp in zip(self.norms, self.mlps):
            x = x + mlp(norm(x))
        return self.head(x)
