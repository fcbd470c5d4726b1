import argparse
import socket

import ray
import torch

from workers import Learner


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-learners", type=int, default=4)
    args = ap.parse_args()
    ray.init(address="auto")
    addr = f"{socket.gethostbyname(socket.gethostname())}:29611"
    learners = [Learner.remote(r, args.num_learners, addr) for r in range(args.num_learners)]
    for it in range(1000):
        batches = [(torch.randn(256, 512), torch.randint(0, 18, (256,))) for _ in learners]
        losses = ray.get([l.train_on.remote(b) for l, b in zip(learners, batches)])
        if it % 100 == 0:
            print(it, sum(losses) / len(losses))
    torch.save(ray.get(learners[0].get_weights.remote()), "policy.pt")


if __name__ == "__main__":
    main()
