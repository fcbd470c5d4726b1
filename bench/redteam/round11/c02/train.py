import argparse

import yaml

from asr.trainer import ConformerTrainer


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--resume", default="")
    cli = parser.parse_args()
    with open(cli.config) as f:
        cfg = yaml.safe_load(f)
    cfg["resume"] = cli.resume
    return argparse.Namespace(**cfg)


if __name__ == "__main__":
    ConformerTrainer(parse_args()).run()
