"""DSL705: the local-rank option a launcher adds to the script's argv, against the script's own parser."""
from __future__ import annotations

import argparse
import ast
import contextlib
import io

import pytest

from dslint.facts.cli_options import parsed_options
from dslint.facts.script import build_script_facts

PARSER = ("import argparse\n\nimport torch\n\nparser = argparse.ArgumentParser(KW)\nOPTIONS"
          "parser.add_argument('--lr', type=float, default=1e-4)\nargs = PARSE\n")
UNDERSCORE = "parser.add_argument('--local_rank', type=int, default=0)\n"


def script(options=UNDERSCORE, parse="parser.parse_args()", kw=""):
    return PARSER.replace("OPTIONS", options).replace("PARSE", parse).replace("KW", kw)


def codes(project, launch, text, extra=None):
    project.write({"run.sh": launch + "\n", "train.py": text, **(extra or {})})
    return [(f.code, f.span.start.row) for f in project.check(select=["DSL705"]).findings]


TDL = "python -m torch.distributed.launch --nproc_per_node 8 train.py --lr 3e-4"


def test_torch_distributed_launch_passes_the_dashed_option_since_pytorch_2(project):
    assert codes(project, TDL, script()) == [("DSL705", 8)]


def test_a_project_that_keeps_pytorch_1_gets_the_underscore(project):
    assert codes(project, TDL, script(), {"requirements.txt": "torch==1.13.1\ntorchvision==0.14.1\n"}) == []
    assert codes(project, TDL, script(options=""), {"requirements.txt": "torch<2.0\n"}) == [("DSL705", 7)]


def test_both_spellings_or_use_env_or_torchrun_are_fine(project):
    both = "parser.add_argument('--local-rank', '--local_rank', type=int, default=0)\n"
    assert codes(project, TDL, script(options=both)) == []
    assert codes(project, TDL.replace("--nproc_per_node", "--use-env --nproc_per_node"), script()) == []
    assert codes(project, "torchrun --nproc_per_node 8 train.py", script(options="")) == []


def test_the_deepspeed_launcher_passes_the_underscore(project):
    ds = "deepspeed --num_gpus 8 train.py"
    added = "parser = deepspeed.add_config_arguments(parser)\n"
    text = script(options=added).replace("import torch\n", "import deepspeed\nimport torch\n")
    assert codes(project, ds, text) == [("DSL705", 9)]
    assert codes(project, ds, script()) == []
    assert codes(project, ds.replace("deepspeed ", "deepspeed --no_local_rank "), text) == []


def test_a_parser_not_all_in_sight_says_nothing(project):
    for text in (script(parse="parser.parse_known_args()[0]"),
                 script(options="add_model_args(parser)\n"),
                 script(options="for name in ('a', 'b'):\n    parser.add_argument('--' + name)\n"),
                 script(kw="parents=[base]")):
        assert codes(project, TDL, text) == [], text
    assert codes(project, "python -m torch.distributed.launch $DIST_ARGS train.py", script()) == []


@pytest.mark.parametrize("options, kw", [
    (UNDERSCORE, ""), ("", ""), ("parser.add_argument('--local-rank', type=int)\n", ""),
    ("parser.add_argument('--local_rank_id', type=int)\n", ""),
    ("parser.add_argument('--local_rank_id', type=int)\n", "allow_abbrev=False"),
    ("parser.add_argument('--local-rank-id', type=int)\nparser.add_argument('--local-rank-x', type=int)\n", ""),
    ("g = parser.add_argument_group('dist')\ng.add_argument('--local-rank', dest='lr0', type=int)\n", ""),
])
def test_accepts_agrees_with_argparse(options, kw):
    text = script(options=options, kw=kw).replace("args = parser.parse_args()\n", "")
    found = parsed_options(build_script_facts("t.py", text + "args = parser.parse_args()\n",
                                              ast.parse(text + "args = parser.parse_args()\n")))
    namespace: dict = {}
    exec(compile(text.replace("import torch\n", ""), "t.py", "exec"), namespace)
    for word in ("--local-rank", "--local_rank"):
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                namespace["parser"].parse_args([f"{word}=0"])
                real = True
            except SystemExit:
                real = False
        assert found.accepts(f"{word}=0") is real, (options, kw, word)
    assert isinstance(namespace["parser"], argparse.ArgumentParser)


HELPER = ("import argparse\n\n\ndef get_args(argv=None):\n    parser = argparse.ArgumentParser()\n"
          "    group = parser.add_argument_group('run')\n    group.add_argument('--lr', type=float, default=1e-4)\n"
          "OPTIONS    return parser.parse_args(argv)\n")
CALLER = "import torch\n\nfrom configs.arguments import get_args\n\nargs = get_args()\nOWN"


def test_a_parser_built_and_parsed_in_a_helper_of_another_module(make_project):
    helper = {"configs/__init__.py": "", "configs/arguments.py": HELPER.replace("OPTIONS", "")}
    found = codes(make_project("missing"), "deepspeed --num_gpus 8 train.py", CALLER.replace("OWN", ""), helper)
    assert found == [("DSL705", 8)]  # (the return of get_args, in configs/arguments.py)
    taken = {**helper, "configs/arguments.py": HELPER.replace("OPTIONS", "    parser.add_argument('--local_rank', type=int)\n")}
    assert codes(make_project("taken"), "deepspeed --num_gpus 8 train.py", CALLER.replace("OWN", ""), taken) == []
    # (the script parses a command line of its own too: what it accepts is not in sight)
    own = CALLER.replace("OWN", "import argparse\nextra, _ = argparse.ArgumentParser().parse_known_args()\n")
    assert codes(make_project("own"), "deepspeed --num_gpus 8 train.py", own, helper) == []
