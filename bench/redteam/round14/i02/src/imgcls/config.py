import yaml


def load(path: str) -> dict:
    with open(path) as f:
        cfg = yaml.safe_load(f)
    cfg.setdefault("output_dir", "runs/default")
    return cfg
