import deepspeed
import torch
from deepspeed.pipe import PipelineModule, LayerSpec
from settings import HIDDEN, NUM_STAGES


def main():
    deepspeed.init_distributed()
    layers = [LayerSpec(torch.nn.Linear, HIDDEN, HIDDEN) for _ in range(16)]
    net = PipelineModule(layers=layers, num_stages=NUM_STAGES, loss_fn=torch.nn.MSELoss())
    engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config="pipe.json")
    data = iter([(torch.randn(4, HIDDEN), torch.randn(4, HIDDEN))] * 100000)
    for step in range(1000):
        engine.train_batch(data_iter=data)


if __name__ == "__main__":
    main()
