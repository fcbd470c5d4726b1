import deepspeed
import torch
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    deepspeed.init_distributed()
    model = torch.nn.Linear(1024, 1024)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds_config.json")
    for _ in range(1000):
        engine.backward(engine(torch.randn(8, 1024, device=engine.device)).pow(2).mean())
        engine.step()


if __name__ == "__main__":
    main()
