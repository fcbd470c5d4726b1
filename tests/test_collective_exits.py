"""DSL501 facts about who really makes a collective: a branch that leaves the pass (continue,
break, return, raise) after its half of a call whose other half follows the `if`; a module
global that is an "already set up" sentinel, not the rank; a helper whose every collective sits
under a parameter that defaults to False, decided with each call's arguments."""
from __future__ import annotations

import ast

from dslint.facts.collectives import call_arguments, collective_functions, passes_flag
from dslint.facts.conditions import leaves_after, rank_tests, runs_after_skipping
from dslint.facts.script import build_script_facts

HEAD = "import os\n\nimport torch\nimport torch.distributed as dist\n\n"


def facts_of(text: str):
    return build_script_facts("t.py", text, ast.parse(text))


def dsl501_rows(project, files: dict) -> list:
    project.write(files)
    return sorted((f.path, f.span.start.row) for f in project.check(select=["DSL501"]).findings if f.code == "DSL501")


# -- 1. a branch that leaves the pass and the call after the `if` ------------------------------

LEAVING = HEAD + '''
def reduce_buckets(buckets, rank, world):
    for i, bucket in enumerate(buckets):
        if i % world == rank:
            bucket.mul_(2)
            if bucket.numel() > 8:
                dist.all_reduce(bucket)
                continue
            bucket.add_(1)
        dist.all_reduce(bucket)


def reduce_until(buckets, rank):
    for bucket in buckets:
        if rank == 0:
            dist.all_reduce(bucket, op=dist.ReduceOp.MAX)
            break
        dist.all_reduce(bucket)


def sync_once(t, rank):
    if rank > 0:
        dist.broadcast(t, 0)
        return t
    t.zero_()
    dist.broadcast(t, src=0)
    return t


def mismatched(buckets, rank):
    for bucket in buckets:
        if rank == 0:
            dist.all_reduce(bucket)
            continue
        dist.barrier()


def falls_through(buckets, rank):
    for bucket in buckets:
        if rank == 0:
            dist.all_reduce(bucket)
        dist.all_reduce(bucket)


def other_branch_leaves_too(buckets, rank):
    for bucket in buckets:
        if rank == 0:
            dist.all_reduce(bucket)
            continue
        else:
            continue
        dist.all_reduce(bucket)


def inner_loop(buckets, rank):
    for bucket in buckets:
        if rank == 0:
            for part in bucket:
                dist.all_reduce(part)
            continue
        dist.all_reduce(bucket)


def after_the_loop(buckets, rank):
    for bucket in buckets:
        if rank == 0:
            dist.all_reduce(bucket)
            continue
    dist.all_reduce(buckets[0])
'''


def _rows_of(text):
    lines = text.splitlines()
    return {name: i + 1 for i, line in enumerate(lines) if line.startswith("def ") for name in [line[4:line.index("(")]]}


def test_a_branch_that_leaves_after_its_call_pairs_with_the_same_call_after_the_if(project):
    found = dsl501_rows(project, {"t.py": LEAVING})
    starts = _rows_of(LEAVING)
    owners = sorted({max((s, n) for n, s in starts.items() if s <= row)[1] for _, row in found})
    # continue (nested branch), break and return pair up; a different collective, no exit, an exit in the
    # other branch too, an inner loop, or the matching call outside the loop body do not
    assert owners == ["after_the_loop", "falls_through", "inner_loop", "mismatched", "other_branch_leaves_too"]


def test_leaves_after_finds_the_exit_innermost_first_and_refuses_loops():
    tree = ast.parse("if a:\n    if b:\n        f()\n        continue\n    return\nif c:\n    for x in y:\n        g()\n    break\n")
    first, second = tree.body
    call = first.body[0].body[0].value
    assert isinstance(leaves_after(first.body, call), ast.Continue)
    assert leaves_after(second.body, second.body[0].body[0].value) is None


def test_runs_after_skipping_stops_at_the_loop_body_for_continue_only():
    tree = ast.parse("def f():\n    for x in y:\n        if a:\n            continue\n        g()\n    h()\n")
    loop = tree.body[0].body[0]
    gate = loop.body[0]
    cont = [n.lineno for n in runs_after_skipping(tree.body[0].body, gate, gate.body[0])]
    ret = [n.lineno for n in runs_after_skipping(tree.body[0].body, gate, ast.Return())]
    assert cont == [5] and ret == [5, 6]  # the loop body's rest, then the function's


# -- 2. a sentinel global is no rank ------------------------------------------------------------

SENTINEL = HEAD + '''
_RANK = None
_LOCAL_RANK = -1


def init_dist():
    global _RANK, _LOCAL_RANK
    if _RANK is not None or _LOCAL_RANK >= 0:
        raise RuntimeError("init_dist() twice")
    dist.init_process_group("nccl")
    dist.barrier()
    _RANK = dist.get_rank()
    _LOCAL_RANK = int(os.environ["LOCAL_RANK"])
'''


def test_an_already_set_up_sentinel_global_is_no_rank_gate(project):
    assert dsl501_rows(project, {"t.py": SENTINEL}) == []


def _sentinel_test_reads(text: str) -> bool:
    facts = facts_of(text)
    test = next(n for n in ast.walk(facts.tree) if isinstance(n, ast.If) and "_LOCAL_RANK" in ast.unparse(n.test)).test
    return rank_tests(facts).selects_some_ranks(test)


def test_the_sentinel_needs_every_store_after_the_test_in_the_testing_function_and_a_test_blind_to_ranks():
    base = "_LOCAL_RANK = -1\n\n\ndef setup(r):\n    global _LOCAL_RANK\n    if _LOCAL_RANK {op}:\n        return\n{tail}"
    store = "    dist.barrier()\n    _LOCAL_RANK = r\n"
    assert not _sentinel_test_reads(HEAD + base.format(op=">= 0", tail=store))
    assert not _sentinel_test_reads(HEAD + base.format(op="!= -1", tail=store))
    # on a later call every rank holds its own rank: `== 0` tells them apart
    assert _sentinel_test_reads(HEAD + base.format(op="== 0", tail=store))
    # another function stores the rank: by the time setup() runs it may hold it
    other = store + "\n\ndef configure(r):\n    global _LOCAL_RANK\n    _LOCAL_RANK = r\n"
    assert _sentinel_test_reads(HEAD + base.format(op=">= 0", tail=other))
    # stored before the test on the path (inside a branch the test does not share)
    branch = "    if r:\n        _LOCAL_RANK = r\n"
    assert _sentinel_test_reads(HEAD + base.format(op=">= 0", tail=branch))
    # the module initialises it from the environment: it is the rank
    env = (HEAD + base.format(op=">= 0", tail=store)).replace("_LOCAL_RANK = -1\n", "_LOCAL_RANK = int(os.environ['LOCAL_RANK'])\n")
    assert _sentinel_test_reads(env)


def test_a_raise_guard_is_worded_as_a_raise(project):
    text = HEAD + "\ndef run(t):\n    if dist.get_rank() != 0:\n        raise SystemExit(0)\n    dist.all_reduce(t)\n"
    project.write({"t.py": text})
    messages = [f.message for f in project.check(select=["DSL501"]).findings]
    assert len(messages) == 1 and ": raise`" in messages[0] and ": return`" not in messages[0]


# -- 3. a collective under a parameter that defaults to False ---------------------------------

HELPERS = '''import torch.distributed as dist


def export(tensors, path, *, wait=False, verbose=None):
    out = {}
    for name, t in tensors.items():
        if wait and t.is_cuda:
            dist.barrier()
        out[name] = t.cpu()
    if verbose:
        dist.barrier()
    return out


def export_then_sync(tensors, path):
    out = export(tensors, path, wait=True)
    return out


def export_quietly(tensors, path):
    return export(tensors, path)


def half_guarded(tensors, wait=False):
    if wait:
        dist.barrier()
    dist.all_reduce(tensors)
'''

CALLERS = HEAD + '''from helpers import export, export_quietly, export_then_sync, half_guarded

dist.init_process_group("nccl")
flag = os.environ.get("WAIT") == "1"
if dist.get_rank() == 0:
    export({}, "a.pt")
    export({}, "b.pt", wait=False)
    export_quietly({}, "c.pt")
    export({}, "d.pt", wait=flag)
    export({}, "e.pt", verbose=True)
    export_then_sync({}, "f.pt")
    half_guarded({})
    export(*[{}, "g.pt"])
'''


def test_a_call_that_leaves_the_flag_false_reaches_no_collective(project):
    found = dsl501_rows(project, {"train.py": CALLERS, "helpers.py": HELPERS})
    text_rows = {i + 1: line.strip() for i, line in enumerate(CALLERS.splitlines())}
    assert [text_rows[row] for _, row in found] == [
        'export({}, "d.pt", wait=flag)', 'export({}, "e.pt", verbose=True)', 'export_then_sync({}, "f.pt")',
        'half_guarded({})', 'export(*[{}, "g.pt"])']


def test_the_same_module_decides_with_the_call_arguments(project):
    text = HELPERS + '''

def dump(t, sync=False):
    if sync:
        dist.barrier()


def main(rank, opt, t):
    if rank == 0:
        export({}, "x", wait=False)
        export_quietly({}, "y")
        dump(t)
        dump(t, False)
        dump(t, opt)
'''
    found = dsl501_rows(project, {"helpers.py": text})
    assert [row for _, row in found] == [text.splitlines().index("        dump(t, opt)") + 1]


def test_the_summary_records_the_guarding_flags():
    functions = collective_functions(facts_of(HELPERS))
    assert functions["export"][2] == ("verbose", "wait")
    assert functions["export_then_sync"][2] == () and functions["half_guarded"][2] == ()
    assert "export_quietly" not in functions


def test_passes_flag_reads_positions_keywords_and_splats():
    call = ast.parse("f(a, b, x, **kw)").body[0].value
    assert passes_flag(call_arguments(call), ["a", "b", "sync"], ("sync",))
    call = ast.parse("f(a, b, None, sync=0)").body[0].value
    assert not passes_flag(call_arguments(call), ["a", "b", "sync"], ("sync",))
    call = ast.parse("f(a, b, 1)").body[0].value
    assert passes_flag(call_arguments(call), ["a", "b", "sync"], ("sync",))
