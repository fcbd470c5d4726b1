import argparse

import deepspeed
import torch

from megatron_lite import mpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--tp", type=int, default=1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    deepspeed.init_distributed()
    mpu.initialize_model_parallel(args.tp)
    model = torch.nn.Linear(1024, 1024)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters(), mpu=mpu)
    for _ in range(10):
        loss = engine(torch.randn(16, 1024, device=engine.device)).sum()
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
