import argparse

from transformers import GPT2Config, GPT2LMHeadModel

from tinylm import config, data, dist_utils
from tinylm.engine import PretrainTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/tinylm_350m.yaml")
    args = parser.parse_args()
    cfg = config.load(args.config)

    dist_utils.setup()
    model = GPT2LMHeadModel(GPT2Config(**cfg["model"]))
    loader = data.build_loader(cfg["data"], cfg["deepspeed"]["train_micro_batch_size_per_gpu"])
    PretrainTrainer(model, loader, cfg).run()


if __name__ == "__main__":
    main()
