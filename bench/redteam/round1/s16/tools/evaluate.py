import argparse
import sys

import torch

sys.path.insert(0, ".")
from model import Enhancer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--device", default="cuda:0")
    args = ap.parse_args()
    model = Enhancer().to(args.device)
    model.load_state_dict(torch.load(args.ckpt))
    model.eval()
    clean, noisy = torch.load("data/test_pairs.pt")
    with torch.no_grad():
        err = torch.nn.functional.l1_loss(model(noisy.to(args.device)), clean.to(args.device))
    print(f"test L1 {err.item():.4f}")


if __name__ == "__main__":
    main()
