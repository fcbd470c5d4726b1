"""A rank test within the group that the collective runs on (DSL501: the group's other members
never join), and a DDP wrapper that nothing uses while the loop trains the bare module (DSL303)."""
from __future__ import annotations

import ast

import pytest

from dslint.facts.conditions import ranked_groups, same_group
from dslint.facts.script import build_script_facts

PIPE = """import torch
import torch.distributed as dist


def sync_embeddings(weight, dp_group, mp_group, rank_in_dp):
{body}
"""


def _found(project, code):
    return [(f.span.start.row, f.message) for f in project.check().findings if f.code == code]


@pytest.mark.parametrize("body", [
    # the rank within dp_group, the collective on dp_group
    "    if dist.get_rank(group=dp_group) == 0:\n        dist.all_reduce(weight, group=dp_group)",
    "    if dist.get_rank(dp_group) != 0:\n        dist.broadcast(weight, 0, dp_group)",
    "    if dp_group.rank() == 0:\n        dist.barrier(group=dp_group)",
    "    dp_rank = dist.get_rank(group=dp_group)\n    if dp_rank == 0:\n        dist.all_gather([weight], weight, dp_group)",
])
def test_rank_within_the_same_group_gates_its_collective(project, body):
    project.write({"sync.py": PIPE.format(body=body)})
    found = _found(project, "DSL501")
    assert len(found) == 1 and "hangs" in found[0][1]


@pytest.mark.parametrize("body", [
    # a rank in one group guarding a collective over another (Megatron's tp_rank around a pp broadcast)
    "    if dist.get_rank(group=mp_group) == 0:\n        dist.broadcast(weight, 0, group=dp_group)",
    # membership of the group: every member calls it
    "    if rank_in_dp in (0, 1):\n        dist.all_reduce(weight, group=dp_group)",
    # the group is a call: no binding to compare
    "    if dist.get_rank(group=dp_group) == 0:\n        dist.all_reduce(weight, group=make_group())",
    # the group name is rebound between the test and the collective
    "    if dist.get_rank(group=dp_group) == 0:\n        dp_group = mp_group\n        dist.all_reduce(weight, group=dp_group)",
    # compared with another rank, not a constant
    "    if dist.get_rank(group=dp_group) == rank_in_dp:\n        dist.all_reduce(weight, group=dp_group)",
])
def test_other_group_or_unprovable_tests_stay_silent(project, body):
    project.write({"sync.py": PIPE.format(body=body)})
    assert _found(project, "DSL501") == []


def test_ranked_groups_and_same_group_facts():
    text = ("import torch.distributed as dist\n"
            "def f(a, b):\n"
            "    if dist.get_rank(group=a) == 0 and b.rank() != 1 and dist.get_rank() == 0:\n"
            "        dist.barrier(group=a)\n")
    facts = build_script_facts("g.py", text, ast.parse(text))
    test = facts.tree.body[1].body[0].test
    groups = ranked_groups(facts, test)
    assert sorted(ast_name.id for ast_name in groups) == ["a", "b"]
    call = facts.tree.body[1].body[0].body[0].value
    used = call.keywords[0].value
    a = next(g for g in groups if g.id == "a")
    b = next(g for g in groups if g.id == "b")
    assert same_group(facts, a, used) and not same_group(facts, b, used)


LOOP = """import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def fit():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    net = torch.nn.Linear(4, 4).cuda()
    {wrap}
    opt = torch.optim.Adam({params})
    for _ in range(5):
        loss = {forward}(torch.randn(3, 4, device="cuda")).sum()
        loss.backward()
        opt.step()
    {after}
"""


@pytest.mark.parametrize("wrap,params,forward,after", [
    ("replica = DDP(net)", "net.parameters()", "net", "torch.save(net.state_dict(), 'n.pt')"),
    ("replica = DDP(net)", "net.parameters()", "net", "torch.save(replica.module.state_dict(), 'n.pt')"),
    ("replica = torch.nn.parallel.DistributedDataParallel(net)", "net.parameters()", "net", "pass"),
])
def test_unused_ddp_wrapper_trains_nothing_in_sync(project, wrap, params, forward, after):
    project.write({"fit.py": LOOP.format(wrap=wrap, params=params, forward=forward, after=after)})
    found = _found(project, "DSL303")
    assert len(found) == 1 and "never called" in found[0][1]


@pytest.mark.parametrize("wrap,params,forward,after", [
    ("replica = DDP(net)", "net.parameters()", "replica", "pass"),  # trained through the wrapper
    ("net = DDP(net)", "net.parameters()", "net", "pass"),  # the name now holds the wrapper
    ("replica = DDP(net)", "replica.parameters()", "net", "pass"),  # an attribute read other than .module
    ("replica = DDP(net)", "net.parameters()", "net", "return replica"),  # returned
    ("replica = DDP(net)", "net.parameters()", "net", "keep(replica)"),  # passed on
    ("self_box = [DDP(net)]", "net.parameters()", "net", "pass"),  # not a plain name = DDP(...)
    ("replica = DDP(net)", "net.parameters()", "net", "assert isinstance(replica, DDP)"),  # another mention
])
def test_used_or_unclassified_wrapper_stays_silent(project, wrap, params, forward, after):
    project.write({"fit.py": LOOP.format(wrap=wrap, params=params, forward=forward, after=after)})
    assert _found(project, "DSL303") == []
