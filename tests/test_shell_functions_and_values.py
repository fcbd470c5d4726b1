"""Shell functions see their call's words as `$1`.. `"$@"`; values reach env writes through
`str(CONST)`; `functools.partial` aliases and dataclass fields resolve to what they were bound to."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from dslint.sources.launch import parse_launch_file

BASH = shutil.which("bash")

# `python` replaced by a function that prints its arguments, one per line: what bash passes to it.
_SHIM = 'python() { printf "%s\\n" "$@"; }\n'


def _bash_python_argv(script: str) -> list[list[str]]:
    out = subprocess.run([BASH, "-c", _SHIM + script], capture_output=True, text=True, timeout=10, check=True)
    return [block.splitlines() for block in out.stdout.split("--end--\n") if block]


def _parsed_python_argv(script: str) -> list[list]:
    commands = parse_launch_file(script).commands
    return [[c.script] + [a.value for a in c.script_args] for c in commands if c.script is not None]


# Each script calls `python` once per function (functions are read at their first call), then prints
# a separator so the bash run splits the same way.
DIFFERENTIAL = [
    'launch() {\n  python train.py "$@"\n  echo --end--\n}\nlaunch --lr 0.1 "two words"\n',
    'launch() {\n  python train.py $@\n  echo --end--\n}\nlaunch --lr 0.1 "two words"\n',
    'launch() {\n  python train.py "$*"\n  echo --end--\n}\nlaunch a b\n',
    'launch() {\n  python "$1" --epochs "$2" --rest "${3:-none}"\n  echo --end--\n}\nlaunch train.py 5\n',
    'launch() {\n  local script=$1\n  shift\n  python "$script" "$@"\n  echo --end--\n}\nlaunch train.py --x 1\n',
    'launch() {\n  shift 2\n  python "$@" --n "$#"\n  echo --end--\n}\nlaunch a b train.py c\n',
    'inner() {\n  python "$@"\n  echo --end--\n}\nouter() {\n  inner "$2" "$1"\n}\nouter --flag train.py\n',
    'set -- train.py --seed 3\npython "$@"\necho --end--\n',
    'launch() {\n  python "${1}" "${10}" $10\n  echo --end--\n}\nlaunch t.py 2 3 4 5 6 7 8 9 ten\n',
    'EXTRA="--a 1"\nlaunch() {\n  python "$@" --n "$#"\n  echo --end--\n}\nlaunch t.py $EXTRA ""\n',
    'launch() {\n  python "$1" --x "${2:-4}"\n  echo --end--\n}\nlaunch t.py\n',
]


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("script", DIFFERENTIAL)
def test_positional_parameters_expand_as_bash_expands_them(script):
    assert _parsed_python_argv(script) == _bash_python_argv(script)


def test_torchrun_in_a_function_gets_the_script_from_the_call():
    launch = parse_launch_file(
        'run() {\n  torchrun --standalone --nproc_per_node=8 "$@"\n}\nrun pretrain.py --config ds.json\n')
    [command] = launch.commands
    assert command.script == "pretrain.py"
    assert command.nproc_per_node == 8
    assert [a.value for a in command.script_args] == ["--config", "ds.json"]


@pytest.mark.parametrize("script", [
    # the script's own arguments: unknown
    'torchrun --nproc_per_node=8 "$@"\n',
    # a function never called: unknown
    'launch() {\n  torchrun --nproc_per_node=8 "$@"\n}\n',
    # an argument loop shifts an unknown number of times
    'launch() {\n  while [ $# -gt 1 ]; do shift; done\n  torchrun --nproc_per_node=8 "$@"\n}\nlaunch a b train.py\n',
    # a shift in one branch only
    'launch() {\n  if [ -n "$X" ]; then shift; fi\n  torchrun --nproc_per_node=8 "$@"\n}\nlaunch a train.py\n',
    # `"$1"` inside `bash -c '...'` is bash -c's own argument
    "launch() {\n  bash -c 'torchrun --nproc_per_node=8 \"$1\"' sh other.py\n}\nlaunch train.py\n",
    # a default does not replace an argument we cannot read
    'launch() {\n  torchrun --nproc_per_node=8 "${1:-train.py}"\n}\nlaunch "$SCRIPT"\n',
    # `${1%.py}` is not `$1`
    'launch() {\n  torchrun --nproc_per_node=8 "${1%.sh}"\n}\nlaunch train.py\n',
    # the words before the script may be any number of words
    'launch() {\n  torchrun --nproc_per_node=8 "$2"\n}\nlaunch $OPTIONS train.py\n',
    'inner() {\n  torchrun --nproc_per_node=8 "$1"\n}\nouter() {\n  inner "$@" train.py\n}\nouter "$@"\n',
])
def test_positional_parameters_that_are_unknown_stay_unknown(script):
    for command in parse_launch_file(script).commands:
        assert command.script is None


def test_a_call_argument_keeps_its_own_span():
    text = 'launch() {\n  torchrun --nproc_per_node=8 "$@"\n}\nlaunch train.py\n'
    [command] = parse_launch_file(text).commands
    start = command.script_span.start_offset
    assert text[start:command.script_span.end_offset] == "train.py"


# -- a launch through a shell function, end to end ------------------------------------------------
OFFLOAD = ('{"train_micro_batch_size_per_gpu": 1, "optimizer": {"type": "Adam", "params": {"lr": 0.001}}, '
           '"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}}')
ENGINE = ('import deepspeed\nimport torch\n\nnet = torch.nn.Linear(4, 4)\n'
          'engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config="zero.json")\n')


def test_a_launch_whose_rank_count_is_a_function_argument_is_checked(project):
    project.write({
        "go.sh": 'start() {\n  local gpus=$1\n  shift\n  torchrun --nproc_per_node "$gpus" "$@"\n}\nstart 4 finetune.py\n',
        "finetune.py": ENGINE, "zero.json": OFFLOAD})
    assert "DSL202" in project.codes()


def test_a_function_whose_script_comes_from_the_callers_arguments_is_unknown(project):
    project.write({
        "go.sh": 'start() {\n  torchrun --nproc_per_node 4 "$@"\n}\nstart "$@"\n',
        "finetune.py": ENGINE, "zero.json": OFFLOAD})
    assert "DSL202" not in project.codes()


# -- env writes through module constants ------------------------------------------------------------
SPAWNED = """\
import os

import torch.distributed as dist
import torch.multiprocessing as mp

{constants}


def init(rank):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = {port}
    dist.init_process_group("gloo", rank=rank, world_size=2)


if __name__ == "__main__":
    mp.spawn(init, nprocs=2)
"""


@pytest.mark.parametrize("constants, port", [
    ("RDZV_PORT = 29511", "str(RDZV_PORT)"),
    ("BASE = 29000\nOFFSET = 11", 'f"{BASE + OFFSET}"'),
    ("RDZV_PORT = '29511'", "RDZV_PORT"),
])
def test_a_port_from_a_module_constant_is_a_fixed_port(project, constants, port):
    project.write({"spawn_train.py": SPAWNED.format(constants=constants, port=port)})
    assert project.codes(select=["DSL703"]) == ["DSL703"]


@pytest.mark.parametrize("constants, port", [
    ("import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--port', type=int, default=29511)\n"
     "args = parser.parse_args()", "str(args.port)"),
    ("import socket\n\ndef free_port():\n    with socket.socket() as s:\n        s.bind(('', 0))\n"
     "        return s.getsockname()[1]", "str(free_port())"),
    ("RDZV_PORT = 29511", 'os.environ.get("MASTER_PORT", str(RDZV_PORT))'),
])
def test_a_port_the_launch_or_the_os_chooses_is_not_fixed(project, constants, port):
    project.write({"spawn_train.py": SPAWNED.format(constants=constants, port=port)})
    assert project.codes(select=["DSL703"]) == []


# -- functools.partial aliases ------------------------------------------------------------------------
def _facts(source: str):
    import ast
    import textwrap

    from dslint.facts.script import build_script_facts

    text = textwrap.dedent(source)
    return build_script_facts("train.py", text, ast.parse(text))


def test_a_call_of_a_partial_is_a_call_of_its_function_with_the_bound_arguments_first():
    from dslint.facts.bindings import partial_calls

    facts = _facts("""
        from functools import partial
        import torch.distributed as dist

        reduce_sum = partial(dist.all_reduce, op=dist.ReduceOp.SUM)
        reduce_sum(loss, async_op=False)
    """)
    [site] = partial_calls(facts)
    assert (site.qualname, site.attr, site.receiver) == ("torch.distributed.all_reduce", "all_reduce", "dist")
    assert ast_text(site.argument(0, "tensor")) == "loss"
    assert ast_text(site.keyword("op")) == "dist.ReduceOp.SUM"
    assert ast_text(site.keyword("async_op")) == "False"


def ast_text(node) -> str:
    import ast

    return ast.unparse(node)


def test_no_partial_no_aliases_and_a_rebound_name_is_no_alias():
    from dslint.facts.bindings import partial_calls

    assert partial_calls(_facts("import deepspeed\nengine.save_checkpoint('d')\n")) == []
    facts = _facts("""
        import functools
        import sys

        if len(sys.argv) > 1:
            save = functools.partial(engine.save_checkpoint, "a")
        else:
            save = print
        save(tag="x")
    """)
    assert partial_calls(facts) == []


CHECKPOINTS = """\
import functools

import deepspeed
import torch
import torch.distributed as dist


def train(net, steps):
    engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config="zero.json")
    {bind}
    for step in range(steps):
        engine.step()
        {call}
"""


def test_a_partial_of_a_checkpoint_save_under_a_rank_test_hangs(project):
    project.write({"train.py": CHECKPOINTS.format(
        bind='checkpoint = functools.partial(engine.save_checkpoint, save_dir="out")',
        call='if dist.get_rank() == 0:\n            checkpoint(tag=f"step{step}")')})
    assert project.codes(select=["DSL502"]) == ["DSL502"]


@pytest.mark.parametrize("bind, call", [
    # every rank saves
    ('checkpoint = functools.partial(engine.save_checkpoint, save_dir="out")', 'checkpoint(tag=f"step{step}")'),
    # a partial of something that is no collective
    ('checkpoint = functools.partial(torch.save, net.state_dict())', 'if dist.get_rank() == 0:\n            checkpoint("w.pt")'),
    # a collective over an explicit sub-group, bound in the partial
    ('group = dist.new_group([0, 1])\n    reduce = functools.partial(dist.all_reduce, group=group)',
     'if dist.get_rank() in (0, 1):\n            reduce(torch.ones(1))'),
])
def test_partials_that_do_not_hang(project, bind, call):
    project.write({"train.py": CHECKPOINTS.format(bind=bind, call=call)})
    assert project.codes(select=["DSL501", "DSL502"]) == []


# -- dataclass fields ------------------------------------------------------------------------------------
BUNDLE = """\
import os
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


@dataclass
class Bundle:
    net: torch.nn.Module
    optimizer: torch.optim.Optimizer
    steps: list = field(default_factory=list)


def train_step(bundle, batch):
    loss = bundle.net.module(batch).mean()
    loss.backward()
    bundle.optimizer.step()


dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
{build}
train_step(bundle, torch.ones(4, 4).cuda())
"""


@pytest.mark.parametrize("build", [
    "wrapped = DDP(torch.nn.Linear(4, 4).cuda())\nbundle = Bundle(net=wrapped, optimizer=torch.optim.AdamW(wrapped.parameters()))",
    "wrapped = DDP(torch.nn.Linear(4, 4).cuda())\nbundle = Bundle(wrapped, torch.optim.AdamW(wrapped.parameters()))",
])
def test_a_ddp_model_held_in_a_dataclass_field_trained_through_module(project, build):
    project.write({"train.py": BUNDLE.format(build=build)})
    assert project.codes(select=["DSL304"]) == ["DSL304"]


@pytest.mark.parametrize("build", [
    # the field holds the plain model
    "plain = torch.nn.Linear(4, 4).cuda()\nwrapped = DDP(plain)\nbundle = Bundle(net=plain, optimizer=torch.optim.AdamW(wrapped.parameters()))",
    # the field is replaced after construction
    "wrapped = DDP(torch.nn.Linear(4, 4).cuda())\nbundle = Bundle(net=wrapped, optimizer=torch.optim.AdamW(wrapped.parameters()))\n"
    "bundle.net = torch.nn.Linear(4, 4)",
    # built from parts we cannot see
    "wrapped = DDP(torch.nn.Linear(4, 4).cuda())\nparts = dict(net=wrapped, optimizer=None)\nbundle = Bundle(**parts)",
])
def test_a_dataclass_field_that_is_not_known_to_be_ddp(project, build):
    project.write({"train.py": BUNDLE.format(build=build)})
    assert project.codes(select=["DSL304"]) == []


def test_constructor_fields_give_the_expression_each_construction_passes():
    from dslint.facts.bindings import semantic_model
    from dslint.facts.values import constructor_fields
    import ast

    facts = _facts("""
        from dataclasses import dataclass

        @dataclass
        class Pair:
            left: int
            right: int = 7

        def use(pair):
            return pair.left, pair.right

        use(Pair(1))
        use(Pair(left=2, right=3))
    """)
    model = semantic_model(facts)
    use = facts.functions["use"]
    left, right = use.body[0].value.elts
    assert [ast.unparse(e) for e in constructor_fields(model, left)] == ["1", "2"]
    assert [ast.unparse(e) for e in constructor_fields(model, right)] == ["7", "3"]


def test_a_default_of_the_scripts_own_argument_is_still_the_default():
    [command] = parse_launch_file("torchrun --nproc_per_node=${1:-4} train.py\n").commands
    assert command.nproc_per_node == 4
    assert command.script == "train.py"


def test_the_script_after_unknown_trailing_words_is_known():
    text = 'launch() {\n  torchrun --nproc_per_node=2 "$@"\n}\nlaunch train.py $EXTRA_ARGS\n'
    [command] = parse_launch_file(text).commands
    assert command.script == "train.py"
    assert [a.value for a in command.script_args] == [None]


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_random_function_calls_expand_as_bash_expands_them_wherever_we_know_the_words():
    import random

    pieces = ['"$@"', '$@', '$*', '"$*"', '$1', '"$2"', '"${2:-x}"', '${3:-d}', '$#', '${10}', '$10', '"a$@b"',
              'a$*b', '"$1$2"', '--k=$1', 'x', '"${1}"']
    before = ['', 'shift', 'shift 2', 'set -- p "q r" s', 'local v=$2', 'g "$@"']
    words = ['t.py', '"two words"', '""', 'a', '--x', '1', "'c  d'"]
    rng = random.Random(11)
    scripts = []
    for _ in range(200):
        body = rng.choice(before) + "\n  python t.py " + " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
        call = "f " + " ".join(rng.choice(words) for _ in range(rng.randint(0, 10)))
        scripts.append(f"g() {{ :; }}\nf() {{\n  {body}\n  echo --end--\n}}\n{call}\n")
    # one bash for all of them, each in its own subshell
    run = subprocess.run([BASH, "-c", _SHIM + "".join(f"(\n{s})\n" for s in scripts)],
                         capture_output=True, text=True, timeout=20, check=True)
    expected = [block.splitlines() for block in run.stdout.split("--end--\n")[:-1]]
    assert len(expected) == len(scripts)
    compared = 0
    for script, argv in zip(scripts, expected):
        [parsed] = _parsed_python_argv(script)
        if None not in parsed:
            compared += 1
            assert parsed == argv, script
    assert compared > 150


CROSS_STEP = """\
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from holder import Holder


def fit_step(holder, batch):
    holder.net.module(batch).mean().backward()
    holder.optimizer.step()


if __name__ == "__main__":
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    wrapped = DDP(torch.nn.Linear(4, 4).cuda())
    holder = Holder(net=wrapped, optimizer=torch.optim.SGD(wrapped.parameters(), lr=0.1))
    fit_step(holder, torch.ones(4, 4).cuda())
"""


def test_a_ddp_model_in_a_dataclass_of_another_module(project):
    project.write({"train.py": CROSS_STEP, "holder.py": (
        "from dataclasses import dataclass\n\nimport torch\n\n\n@dataclass\nclass Holder:\n"
        "    net: torch.nn.Module\n    optimizer: torch.optim.Optimizer\n    epoch: int = 0\n")})
    assert project.codes(select=["DSL304"]) == ["DSL304"]


def test_a_class_of_another_module_that_is_no_dataclass_may_store_anything(project):
    project.write({"train.py": CROSS_STEP, "holder.py": (
        "class Holder:\n    epoch = 0\n\n    def __init__(self, net, optimizer):\n"
        "        self.net = net.module\n        self.optimizer = optimizer\n")})
    assert project.codes(select=["DSL304"]) == []


# -- a DeepSpeed engine stored on self ---------------------------------------------------------------------
STORED_ENGINE = """\
import deepspeed
import torch


class Runner:
    def __init__(self, net):
        eng, opt, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config="zero.json")
        self.wrapped = eng
        self.opt = opt

    def update(self, batch):
        loss = self.wrapped(batch).mean()
        {update}


Runner(torch.nn.Linear(4, 4)).update(torch.ones(2, 4))
"""


def test_an_engine_stored_on_self_then_bypassed_is_fixed_through_self(project):
    project.write({"train.py": STORED_ENGINE.format(update="loss.backward()\n        self.opt.step()")})
    assert project.codes(select=["DSL308"]) == ["DSL308", "DSL308"]
    project.fix(select=["DSL308"])
    assert "self.wrapped.backward(loss)\n        self.wrapped.step()" in project.read("train.py")
    assert project.codes(select=["DSL308"]) == []


def test_an_engine_stored_on_self_and_driven_is_fine(project):
    project.write({"train.py": STORED_ENGINE.format(update="self.wrapped.backward(loss)\n        self.wrapped.step()")})
    assert project.codes(select=["DSL308"]) == []


def test_an_engine_the_step_method_cannot_name_gets_no_fix(project):
    text = STORED_ENGINE.replace("        self.wrapped = eng\n", "        self.keep(eng)\n").replace(
        "self.wrapped(batch)", "self.held(batch)").replace(
        "    def update", "    def keep(self, engine):\n        self.held = engine\n\n    def update")
    project.write({"train.py": text.format(update="loss.backward()\n        self.opt.step()")})
    findings = [f for f in project.check(select=["DSL308"]).findings]
    assert [f.code for f in findings] == ["DSL308"]  # the optimizer's step (the forward is not seen as the engine's)
    assert "the engine's step()" in findings[0].message and findings[0].fix is None
