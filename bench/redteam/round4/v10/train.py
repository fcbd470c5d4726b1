import deepspeed
import torch
from deepspeed.pipe import PipelineModule, LayerSpec


def main():
    deepspeed.init_distributed()
    layers = [LayerSpec(torch.nn.Linear, 256, 256) for _ in range(16)]
    net = PipelineModule(layers=layers, num_stages=4, loss_fn=torch.nn.MSELoss())
    engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config="pipe.json")
    data = iter([(torch.randn(4, 256), torch.randn(4, 256))] * 100000)
    for step in range(1000):
        engine.train_batch(data_iter=data)


if __name__ == "__main__":
    main()
