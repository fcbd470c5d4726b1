"""Pipeline-parallel pretraining with DeepSpeed's PipelineModule (2 stages x 4 data-parallel replicas on 8 GPUs)."""
import argparse

import deepspeed
import torch
from deepspeed.pipe import PipelineModule

from data import RandomTokens
from model import gpt_layer_specs, lm_loss
from settings import HIDDEN, N_LAYERS, PIPE_STAGES, SEQ_LEN, VOCAB


def get_args():
    parser = argparse.ArgumentParser(description="GPT pipeline pretraining")
    parser.add_argument("--local_rank", type=int, default=-1, help="passed by the deepspeed launcher")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--save-dir", default="checkpoints/pipe")
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = get_args()
    torch.cuda.set_device(args.local_rank)
    deepspeed.init_distributed(dist_backend="nccl")

    net = PipelineModule(
        layers=gpt_layer_specs(VOCAB, HIDDEN, N_LAYERS),
        num_stages=PIPE_STAGES,
        loss_fn=lm_loss,
        partition_method="parameters",
    )
    engine, _, _, _ = deepspeed.initialize(
        args=args,
        model=net,
        model_parameters=[p for p in net.parameters() if p.requires_grad],
        training_data=RandomTokens(100_000, SEQ_LEN, VOCAB),
    )

    for step in range(args.steps):
        loss = engine.train_batch()
        if engine.global_rank == 0 and step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    engine.save_checkpoint(args.save_dir)


if __name__ == "__main__":
    main()
