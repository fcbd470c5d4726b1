"""Values that reach a rule through a helper's return, a jsonargparse CLI, a command-line default that
is the machine's CPU count, a Hydra working-directory interpolation, and a TrainingArguments args file."""
from __future__ import annotations

import ast
from pathlib import Path

from dslint import engine
from dslint.facts.bindings import SemanticModel
from dslint.facts.link import link_setups
from dslint.facts.values import is_rank_expression, traced_constant
from dslint.settings import Settings

TWO_NODES = "torchrun --nnodes 2 --nproc_per_node 4 job.py\n"


def _last_argument(source: str):
    tree = ast.parse(source)
    model = SemanticModel(tree)
    call = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args]
    last = max(call, key=lambda c: (c.lineno, c.col_offset))
    return model, last.args[0]


def _codes(project, code: str) -> list:
    return [f for f in project.check(select=[code]).findings if f.code == code]


# -- 1. a rank a helper of this module returns ----------------------------------------------------

HELPER = """\
import os
import torch
import torch.distributed as dist

def bring_up():
    dist.init_process_group("nccl")
{body}

{use}
"""


def _rank_of(body: str, use: str):
    model, arg = _last_argument(HELPER.format(body=body, use=use))
    return is_rank_expression(model, arg)


def test_a_helper_returning_the_global_rank_gives_its_call_that_rank():
    assert _rank_of("    return int(os.environ['RANK'])", "me = bring_up()\ntorch.cuda.set_device(me)") == "global"
    assert _rank_of("    return dist.get_rank()", "torch.cuda.set_device(bring_up())") == "global"


def test_a_not_distributed_fallback_return_is_no_other_rank():
    body = "    if not dist.is_initialized():\n        return 0\n    return dist.get_rank()"
    assert _rank_of(body, "torch.cuda.set_device(bring_up())") == "global"
    assert _rank_of("    return 0", "torch.cuda.set_device(bring_up())") is None


def test_a_helper_returning_the_local_rank_stays_local():
    assert _rank_of("    return int(os.environ['LOCAL_RANK'])", "me = bring_up()\ntorch.cuda.set_device(me)") == "local"


def test_an_unpacked_element_of_the_returned_tuple():
    body = "    size = dist.get_world_size()\n    return size, dist.get_rank()"
    assert _rank_of(body, "n, me = bring_up()\ntorch.cuda.set_device(me)") == "global"
    assert _rank_of(body, "n, me = bring_up()\ntorch.cuda.set_device(n)") is None


def test_returns_that_disagree_or_may_fall_through_give_no_rank():
    disagree = "    if os.environ.get('X'):\n        return int(os.environ['LOCAL_RANK'])\n    return dist.get_rank()"
    assert _rank_of(disagree, "torch.cuda.set_device(bring_up())") is None
    falls = "    if os.environ.get('X'):\n        return dist.get_rank()"
    assert _rank_of(falls, "torch.cuda.set_device(bring_up())") is None
    other = "    return 3"
    assert _rank_of(other, "torch.cuda.set_device(bring_up())") is None


def test_dsl103_on_a_helper_rank_across_two_nodes(project):
    project.write({"job.py": HELPER.format(body="    return dist.get_rank(), dist.get_world_size()",
                                           use="me, n = bring_up()\ntorch.cuda.set_device(me)\n"),
                   "go.sh": TWO_NODES})
    assert len(_codes(project, "DSL103")) == 1


# -- 2. jsonargparse CLI(fn) and CPU-count defaults -----------------------------------------------

JSONARGPARSE = """\
import multiprocessing
import torch
import torch.distributed as dist
from jsonargparse import auto_cli
from torch.utils.data import DataLoader, DistributedSampler

def train(gpu: str = "cuda:1", workers: int = multiprocessing.cpu_count()):
    dist.init_process_group("nccl")
    net = torch.nn.Linear(4, 4).to(gpu)
    data = list(range(64))
    DataLoader(data, sampler=DistributedSampler(data), num_workers=workers)

if __name__ == "__main__":
    auto_cli(train{extra})
"""


def _jsonargparse(project, words: str = "", extra: str = ""):
    return project.write({"job.py": JSONARGPARSE.format(extra=extra),
                          "go.sh": f"torchrun --nproc_per_node 4 job.py {words}\n"})


def test_jsonargparse_defaults_are_read_as_option_defaults(project):
    _jsonargparse(project)
    [device] = _codes(project, "DSL101")
    assert "--gpu" in device.message
    [workers] = _codes(project, "DSL204")
    assert "--workers" in workers.message


def test_jsonargparse_options_on_the_launch_line_replace_the_defaults(make_project):
    assert _codes(_jsonargparse(make_project("gpu"), "--gpu cuda"), "DSL101") == []
    assert _codes(_jsonargparse(make_project("workers"), "--workers=2"), "DSL204") == []
    config = _jsonargparse(make_project("config"), "--config run.yaml")
    assert _codes(config, "DSL101") == [] and _codes(config, "DSL204") == []


def test_jsonargparse_with_other_defaults_is_not_read(project):
    _jsonargparse(project, extra=", set_defaults={'gpu': 'cuda'}")
    assert _codes(project, "DSL101") == [] and _codes(project, "DSL204") == []


ARGPARSE_WORKERS = """\
import argparse, os
import torch.distributed as dist
from torch.utils.data import DataLoader

p = argparse.ArgumentParser()
p.add_argument("--loader-workers", type=int, default=os.cpu_count())
args = p.parse_args()
dist.init_process_group("nccl")
{line}
"""


def test_a_cpu_count_reached_through_a_default_or_a_name(make_project):
    default = make_project("default").write({
        "job.py": ARGPARSE_WORKERS.format(line="DataLoader([1], num_workers=args.loader_workers)"),
        "go.sh": "torchrun --nproc_per_node 4 job.py\n"})
    assert len(_codes(default, "DSL204")) == 1
    given = make_project("given").write({
        "job.py": ARGPARSE_WORKERS.format(line="DataLoader([1], num_workers=args.loader_workers)"),
        "go.sh": "torchrun --nproc_per_node 4 job.py --loader-workers 3\n"})
    assert _codes(given, "DSL204") == []
    named = make_project("named").write({
        "job.py": ARGPARSE_WORKERS.format(line="n = os.cpu_count()\nDataLoader([1], num_workers=n)"),
        "go.sh": "torchrun --nproc_per_node 4 job.py\n"})
    assert len(_codes(named, "DSL204")) == 1
    divided = make_project("divided").write({
        "job.py": ARGPARSE_WORKERS.format(line="n = os.cpu_count() // 4\nDataLoader([1], num_workers=n)"),
        "go.sh": "torchrun --nproc_per_node 4 job.py\n"})
    assert _codes(divided, "DSL204") == []
    for name, line in (("later", "n = os.cpu_count()\nm = n // 4\nDataLoader([1], num_workers=m)"),
                       ("option", "DataLoader([1], num_workers=args.loader_workers // 4)")):
        built = make_project(name).write({"job.py": ARGPARSE_WORKERS.format(line=line),
                                          "go.sh": "torchrun --nproc_per_node 4 job.py\n"})
        assert _codes(built, "DSL204") == [], name


def test_traced_defaults_keep_the_written_default():
    tree = ast.parse(JSONARGPARSE.format(extra=""))
    [loader] = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "DataLoader"]
    traced = traced_constant(SemanticModel(tree), loader.keywords[-1].value)
    assert [ast.unparse(d) for d in traced.defaults] == ["multiprocessing.cpu_count()"]
    assert traced.options == ("--workers", "--config")


# -- 3. ${hydra:runtime.cwd} / ${oc.env:PWD} -------------------------------------------------------

def _hydra_config(tmp_path: Path, leaf: str, launch: str = "torchrun --nproc_per_node 2 train.py\n"):
    (tmp_path / "conf").mkdir(parents=True, exist_ok=True)
    (tmp_path / "zero").mkdir(exist_ok=True)
    (tmp_path / "train.py").write_text(
        "import hydra\nfrom transformers import Trainer, TrainingArguments\n\n"
        "@hydra.main(version_base=None, config_path='conf', config_name='job')\ndef go(c):\n"
        "    Trainer(model=None, args=TrainingArguments(output_dir='o', deepspeed=c.ds)).train()\n\ngo()\n")
    (tmp_path / "conf/job.yaml").write_text(f"ds: {leaf}\n")
    (tmp_path / "zero/two.json").write_text('{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}}\n')
    if launch:
        (tmp_path / "run.sh").write_text(launch)
    values = Settings.model_validate({})
    sources, _ = engine.discover([str(tmp_path)], values, tmp_path)
    project = engine.build_project(tmp_path, engine.check_files(sources, values))
    setups = [s for s in link_setups(project, values) if s.script_path.endswith("train.py")]
    return [s.config.path if s.config is not None else None for s in setups]


def test_hydra_working_directory_interpolations_name_the_launch_folder(make_project):
    for name, leaf in (("cwd", "${hydra:runtime.cwd}/zero/two.json"), ("pwd", "${oc.env:PWD}/zero/two.json")):
        paths = _hydra_config(make_project(name).root, leaf)
        assert paths and all(p is not None and p.endswith("two.json") for p in paths), (name, paths)


def test_other_interpolations_or_no_launch_line_stay_unknown(make_project):
    assert not any(_hydra_config(make_project("home").root, "${oc.env:HOME}/zero/two.json"))
    assert not any(_hydra_config(make_project("alone").root, "${hydra:runtime.cwd}/zero/two.json", launch=""))


# -- 4. TrainingArguments from an args file the launch line names ---------------------------------

ARGS_FILE = """\
import sys
from transformers import HfArgumentParser, Trainer, TrainingArguments

def main():
    parser = HfArgumentParser(TrainingArguments)
{parse}
    trainer = Trainer(model=None, args=targs)
    trainer.train()
    trainer.save_model(targs.output_dir)

main()
"""
ZERO3 = '{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 3, "stage3_gather_16bit_weights_on_model_save": false}}\n'


def _args_file(project, parse: str, launch: str, name: str = "opts/run.yaml"):
    text = "output_dir: out\ndeepspeed: zero/z3.json\n" if name.endswith(".yaml") else \
        '{"output_dir": "out", "deepspeed": "zero/z3.json"}'
    return project.write({"job.py": ARGS_FILE.format(parse=parse), name: text, "zero/z3.json": ZERO3,
                          "go.sh": launch})


def test_the_deepspeed_entry_of_a_yaml_args_file(project):
    _args_file(project, "    (targs,) = parser.parse_yaml_file(yaml_file=sys.argv[1])",
               "torchrun --nproc_per_node 2 job.py opts/run.yaml\n")
    assert len(_codes(project, "DSL611")) == 1


def test_the_deepspeed_launcher_puts_local_rank_first(make_project):
    parse = "    (targs,) = parser.parse_json_file(json_file=sys.argv[{i}])"
    first = _args_file(make_project("first"), parse.format(i=1), "deepspeed --num_gpus 2 job.py a.json\n", "a.json")
    assert _codes(first, "DSL611") == []  # sys.argv[1] is --local_rank=N there
    last = _args_file(make_project("last"), parse.format(i=-1), "deepspeed --num_gpus 2 job.py a.json\n", "a.json")
    assert len(_codes(last, "DSL611")) == 1
    off = _args_file(make_project("off"), parse.format(i=1), "deepspeed --num_gpus 2 --no_local_rank job.py a.json\n",
                     "a.json")
    assert len(_codes(off, "DSL611")) == 1


def test_the_hf_idiom_branch_is_taken_only_with_one_word(make_project):
    parse = ("    if len(sys.argv) == 2 and sys.argv[1].endswith('.json'):\n"
             "        (targs,) = parser.parse_json_file(json_file=sys.argv[1])\n"
             "    else:\n        (targs,) = parser.parse_args_into_dataclasses()")
    one = _args_file(make_project("one"), parse, "torchrun --nproc_per_node 2 job.py a.json\n", "a.json")
    assert len(_codes(one, "DSL611")) == 1
    two = _args_file(make_project("two"), parse, "torchrun --nproc_per_node 2 job.py a.json --seed 1\n", "a.json")
    assert _codes(two, "DSL611") == []


def test_an_args_file_named_by_an_option_or_its_default(make_project):
    parse = ("    import argparse\n    p = argparse.ArgumentParser()\n"
             "    p.add_argument('--train_args_file', type=str, default='a.json')\n"
             "    p.add_argument('--local_rank', type=int)\n"
             "    args = p.parse_args()\n"
             "    (targs,) = parser.parse_json_file(json_file=args.train_args_file)")
    given = _args_file(make_project("given"), parse, "deepspeed --num_gpus 2 job.py --train_args_file b.json\n",
                       "b.json")
    assert len(_codes(given, "DSL611")) == 1
    default = _args_file(make_project("default"), parse, "deepspeed --num_gpus 2 job.py\n", "a.json")
    assert len(_codes(default, "DSL611")) == 1
    other = _args_file(make_project("other"), parse, "deepspeed --num_gpus 2 job.py --train_args_file c.json\n",
                       "a.json")
    assert _codes(other, "DSL611") == []  # (c.json is not in the tree: unknown)
