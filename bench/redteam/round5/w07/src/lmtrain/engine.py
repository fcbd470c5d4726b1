import deepspeed


def build_engine(model, args):
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    return engine, optimizer
