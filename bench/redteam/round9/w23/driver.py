import numpy as np
import ray

from rl.learner import Learner

NUM_LEARNERS = 4


def fake_batch(n=8192):
    return (np.random.randn(n, 376).astype("float32"), np.random.randn(n, 17).astype("float32"),
            np.random.randn(n).astype("float32"))


def main():
    ray.init(address="auto")
    LearnerActor = ray.remote(num_gpus=1, num_cpus=4)(Learner)
    learners = [LearnerActor.remote(rank, NUM_LEARNERS) for rank in range(NUM_LEARNERS)]
    addr, port = ray.get(learners[0].address.remote())
    ray.get([l.setup.remote(addr, port) for l in learners])
    for it in range(1000):
        losses = ray.get([l.update.remote(fake_batch()) for l in learners])
        if it % 50 == 0:
            print(f"iter {it}: loss {np.mean(losses):.4f}")


if __name__ == "__main__":
    main()
