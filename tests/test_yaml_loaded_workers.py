"""DSL204 with num_workers read from a YAML file the script loads with PyYAML (`yaml.safe_load` of
`open(args.config)`), the file named by the launch line's --config (or the option's default)."""
from __future__ import annotations

TRAIN = ("import argparse\nimport os\n\nimport torch\nimport torch.distributed as dist\nimport yaml\n"
         "from torch.utils.data import DataLoader, DistributedSampler\n\n"
         "parser = argparse.ArgumentParser()\nparser.add_argument('--config', default='configs/base.yaml')\n"
         "args = parser.parse_args()\nLOAD\nCHANGE\n"
         "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\ndist.init_process_group('nccl')\n"
         "ds = torch.utils.data.TensorDataset(torch.randn(100, 3))\n"
         "loader = DataLoader(ds, sampler=DistributedSampler(ds), num_workers=cfg['data']['num_workers'])\n")
WITH_OPEN = "with open(args.config) as f:\n    cfg = yaml.safe_load(f)"


def findings(project, big=12, base=2, load=WITH_OPEN, change="", line="--config configs/big.yaml"):
    project.write({"train.py": TRAIN.replace("LOAD", load).replace("CHANGE", change),
                   "configs/base.yaml": f"data:\n  num_workers: {base}\n",
                   "configs/big.yaml": f"data:\n  num_workers: {big}  # JPEG decode\n",
                   "run.sh": f"torchrun --nproc_per_node 8 train.py {line}\n"})
    return [(f.path, f.span.start.row, f.message) for f in project.check(select=["DSL204"], **{"cpu-cores": 32}).findings]


def test_the_yaml_file_the_launch_line_names_gives_the_count(project):
    ((path, row, message),) = findings(project)
    assert (path, row) == ("train.py", 18) and "num_workers=12" in message and "32 cores" in message


def test_the_options_default_file_when_the_line_names_none_and_a_small_count(project):
    ((_, _, message),) = findings(project, base=16, line="")
    assert "num_workers=16" in message
    assert findings(project, big=3) == []


def test_an_open_call_given_straight_to_the_loader_and_a_changed_config(project):
    assert len(findings(project, load="cfg = yaml.safe_load(open('configs/big.yaml'))", line="")) == 1
    assert findings(project, change="cfg['data']['num_workers'] = 2") == []
    assert findings(project, load="with open(args.config, 'w') as f:\n    cfg = yaml.safe_load(f)") == []


HF = ("from transformers import HfArgumentParser, Trainer, TrainingArguments\n\n"
      "(args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n"
      "trainer = Trainer(model=None, args=args)\ntrainer.train()\n")


def test_the_hf_trainers_loader_workers_from_the_launch_line(project):
    def found(count):
        project.write({"sft.py": HF, "run.sh": f"torchrun --nproc_per_node 8 sft.py --output_dir out "
                                                f"--dataloader_num_workers {count} --bf16 True\n"})
        return [(f.path, f.span.start.row, f.span.start.column) for f in
                project.check(select=["DSL204"], **{"cpu-cores": 64}).findings]

    assert found(16) == [("run.sh", 1, 78)]  # (the count word)
    assert found(4) == []
