import deepspeed


def build_engine(model, args):
    params = [p for p in model.parameters() if p.requires_grad]
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=params)
    return engine
