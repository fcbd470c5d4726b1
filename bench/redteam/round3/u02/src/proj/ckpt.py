import torch


def load_pretrained(model, path):
    state = torch.load(path)
    model.load_state_dict(state["model"])
    return model
