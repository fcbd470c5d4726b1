import torch

from models import Net

if __name__ == "__main__":
    model = Net.from_exported("ckpt/final.pt").eval()
    torch.onnx.export(model, torch.zeros(1, 16), "net.onnx")
