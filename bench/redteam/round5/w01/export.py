import argparse
import torch
from common import Net

p = argparse.ArgumentParser()
p.add_argument("--ckpt", default="ckpt.pt")
args = p.parse_args()
model = Net().cuda(0)
model.load_state_dict(torch.load(args.ckpt))
torch.onnx.export(model, torch.randn(1, 64, device="cuda:0"), "net.onnx")
