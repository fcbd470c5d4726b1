import sys
import torch


def main(path):
    state = torch.load(path)
    for k, v in state.items():
        print(k, tuple(v.shape), v.cuda(0).float().norm().item())


if __name__ == "__main__":
    main(sys.argv[1])
