import argparse
import os

import deepspeed
import torch

from wrapping import wrap_model

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
parser = deepspeed.add_config_arguments(parser)
args = parser.parse_args()

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
deepspeed.init_distributed()
model = wrap_model(torch.nn.Linear(512, 512), distributed=True)
engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
for _ in range(100):
    loss = engine(torch.randn(8, 512, device=engine.device)).sum()
    engine.backward(loss)
    engine.step()
