"""Lightning's devices=args.gpus is the option's default only when the launch line provably passes no --gpus."""
from __future__ import annotations

from tests.test_rules_program import LIGHTNING_ENTRY


def _dsl702(project, line):
    project.write({"train.py": LIGHTNING_ENTRY, "run.sh": line})
    return [f for f in project.check().findings if f.code == "DSL702"]


def test_a_line_that_forwards_its_arguments_may_pass_the_option(project):
    assert _dsl702(project, 'torchrun --standalone --nproc_per_node=8 train.py "$@"\n') == []


def test_a_value_in_a_variable_is_unknown(project):
    assert _dsl702(project, "torchrun --standalone --nproc_per_node=8 train.py --gpus $NGPU\n") == []


def test_a_line_that_passes_no_option_takes_the_default(project):
    assert len(_dsl702(project, "torchrun --standalone --nproc_per_node=8 train.py --lr 0.1\n")) == 1
