import torch


def load_backbone(model, path):
    model.load_state_dict(torch.load(path, map_location="cpu"))


def load_detector_head(model, path):
    state = torch.load(path)
    model.load_state_dict(state)
