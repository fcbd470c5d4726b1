import argparse

from tabrec.config import load_config
from tabrec.trainer import Trainer


def main() -> None:
    parser = argparse.ArgumentParser(prog="tabrec-train")
    parser.add_argument("--config", required=True, help="TOML file, see configs/")
    args = parser.parse_args()
    Trainer(load_config(args.config)).fit()


if __name__ == "__main__":
    main()
