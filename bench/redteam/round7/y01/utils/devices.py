import torch


def setup_device(index):
    torch.cuda.set_device(index)
    return torch.device("cuda", index)
