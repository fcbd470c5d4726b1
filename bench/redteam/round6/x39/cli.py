import click
import deepspeed
import torch


@click.command()
@click.option("--ds-config", default="ds_sparse.json", show_default=True)
@click.option("--steps", default=1000)
@click.option("--local_rank", default=-1)
def main(ds_config, steps, local_rank):
    model = torch.nn.Linear(768, 768)
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
    for _ in range(steps):
        engine.backward(engine(torch.randn(4, 768, device=engine.device, dtype=torch.half)).float().sum())
        engine.step()


if __name__ == "__main__":
    main()
