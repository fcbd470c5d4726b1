import deepspeed
import torch
import torch.distributed as dist

MICRO, ACCUM = 4, 2
deepspeed.init_distributed()
cfg = {
    "train_batch_size": MICRO * ACCUM * dist.get_world_size(),
    "train_micro_batch_size_per_gpu": MICRO,
    "gradient_accumulation_steps": ACCUM,
    "optimizer": {"type": "Adam", "params": {"lr": 1e-4}},
    "zero_optimization": {"stage": 1},
}
model = torch.nn.Linear(256, 256)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
for _ in range(10):
    loss = engine(torch.randn(MICRO, 256, device=engine.device)).sum()
    engine.backward(loss); engine.step()
