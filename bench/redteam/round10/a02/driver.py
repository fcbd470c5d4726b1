import argparse

import numpy as np
import ray
import torch

from learner import Learner

KEYS = ("obs", "actions", "logp", "advantages", "returns")


def load_shards(path, num_shards):
    data = np.load(path)
    tensors = {k: torch.from_numpy(data[k]) for k in KEYS}
    n = len(tensors["obs"]) // num_shards
    return [{k: v[i * n:(i + 1) * n] for k, v in tensors.items()} for i in range(num_shards)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-learners", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--rollout-dir", default="rollouts")
    args = parser.parse_args()

    ray.init()
    RemoteLearner = ray.remote(num_gpus=1)(Learner)
    learners = [RemoteLearner.remote() for _ in range(args.num_learners)]
    master_addr, master_port = ray.get(learners[0].address.remote())
    ray.get([learner.join.remote(master_addr, master_port, rank, args.num_learners)
             for rank, learner in enumerate(learners)])

    for it in range(args.iterations):
        shards = load_shards(f"{args.rollout_dir}/iter_{it:05d}.npz", args.num_learners)
        losses = ray.get([learner.update.remote(shard) for learner, shard in zip(learners, shards)])
        if it % 10 == 0:
            print(f"iter {it}: loss {np.mean(losses):.4f}")
    torch.save(ray.get(learners[0].weights.remote()), "policy.pt")


if __name__ == "__main__":
    main()
