import argparse
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--shard", type=int, default=0)
args = p.parse_args()
np.save(f"data/shard{args.shard}.npy", np.random.randint(0, 50000, size=1_000_000))
