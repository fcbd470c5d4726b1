import torch

EPS = torch.tensor(1e-8).cuda()


def normalise(x):
    return x / (x.norm() + EPS)
