import argparse
import os

import submitit

from vitcls.trainer import Trainer


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--partition", default="a100")
    parser.add_argument("--hours", type=int, default=72)
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=128, help="per GPU")
    parser.add_argument("--lr", type=float, default=1e-3)
    return parser.parse_args()


def main():
    args = parse_args()
    executor = submitit.AutoExecutor(folder=os.path.join(args.out, "slurm", "%j"))
    executor.update_parameters(
        name="vit-b16",
        nodes=args.nodes,
        tasks_per_node=8,
        gpus_per_node=8,
        cpus_per_task=12,
        mem_gb=480,
        timeout_min=args.hours * 60,
        slurm_partition=args.partition,
        slurm_signal_delay_s=120,
    )
    job = executor.submit(Trainer(args))
    print(f"submitted {job.job_id}, logs in {args.out}/slurm/{job.job_id}")


if __name__ == "__main__":
    main()
