"""DSL501: collectives the other ranks make under the exact complement of the gate (through a helper
of another module too), and helpers that make their collective on the first call only."""
from __future__ import annotations

UTILS = ("import torch.distributed as dist\n\n\n"
         "def global_barrier():\n    if dist.is_initialized():\n        dist.barrier()\n\n\n"
         "def make_group():\n    return dist.new_group()\n\n\n"
         "def get_global_group():\n    if dist.is_initialized():\n"
         "        if not hasattr(get_global_group, '_global_group'):\n"
         "            get_global_group._global_group = dist.new_group()\n"
         "        return get_global_group._global_group\n    return None\n\n\n"
         "_GROUP = None\n\n\n"
         "def cached_group():\n    global _GROUP\n    if _GROUP is None:\n        _GROUP = dist.new_group()\n"
         "    return _GROUP\n")
HEAD = "import torch.distributed as dist\n\nimport utils\n\n\n"


def rows(project, files):
    project.write({"utils.py": UTILS, **files})
    return sorted((f.path, f.span.start.row) for f in project.check(select=["DSL501"]).findings
                  if f.code == "DSL501")


# -- pairing under complementary gates ----------------------------------------------------------------

RANK0_FIRST = HEAD + (
    "def build(path):\n"
    "    if dist.get_rank() != 0:\n        CALL\n"           # 8
    "    if dist.get_rank() == 0:\n        open(path, 'w').write('x')\n"
    "    if dist.get_rank() == 0:\n        CALL\n")         # 12


def test_rank0_first_through_a_helper_of_another_module_is_silent(project):
    assert rows(project, {"d.py": RANK0_FIRST.replace("CALL", "utils.global_barrier()")}) == []


def test_if_else_calling_the_same_helper_is_silent(project):
    src = HEAD + ("def other():\n    if dist.get_rank() == 0:\n        g = utils.make_group()\n"
                  "    else:\n        g = utils.make_group()\n    return g\n")
    assert rows(project, {"d.py": src}) == []


def test_rank0_first_with_the_barrier_after_the_work_is_silent(project):
    src = ("import torch.distributed as dist\n\n\ndef build(path):\n"
           "    if dist.get_rank() != 0:\n        dist.barrier()\n"
           "    if dist.get_rank() == 0:\n        open(path, 'w').write('x')\n        dist.barrier()\n")
    assert rows(project, {"d.py": src}) == []


def test_gates_that_are_no_complements_are_still_reported(project):
    # rank 1 waits at the barrier that rank 0 (and every rank but 1) never reach the pair of
    src = RANK0_FIRST.replace("CALL", "utils.global_barrier()").replace("!= 0", "!= 1", 1)
    assert rows(project, {"d.py": src}) == [("d.py", 8), ("d.py", 12)]


def test_a_helper_called_twice_on_one_side_is_still_reported(project):
    src = HEAD + ("def build(path):\n    if dist.get_rank() != 0:\n        utils.global_barrier()\n"
                  "    if dist.get_rank() == 0:\n        utils.global_barrier()\n        utils.global_barrier()\n")
    assert rows(project, {"d.py": src}) == [("d.py", 8), ("d.py", 10), ("d.py", 11)]


def test_a_pair_with_a_return_between_is_still_reported(project):
    src = HEAD + ("def build(path, done):\n    if dist.get_rank() != 0:\n        utils.global_barrier()\n"
                  "    if dist.get_rank() == 0:\n        if done:\n            return\n        utils.global_barrier()\n")
    assert rows(project, {"d.py": src}) == [("d.py", 8), ("d.py", 12)]


def test_different_helpers_in_the_two_branches_are_still_reported(project):
    src = HEAD + ("def other():\n    if dist.get_rank() == 0:\n        g = utils.make_group()\n"
                  "    else:\n        g = utils.global_barrier()\n    return g\n")
    assert rows(project, {"d.py": src}) == [("d.py", 8), ("d.py", 10)]


# -- a group created once --------------------------------------------------------------------------

MEMO = HEAD + (
    "def main():\n    dist.init_process_group('nccl')\n"
    "    FIRST\n"
    "    if dist.get_rank() == 0:\n        g = utils.HELPER()\n        print(g)\n")  # 10


def test_a_create_once_helper_called_first_on_every_rank_is_silent(project):
    for helper in ("get_global_group", "cached_group"):
        src = MEMO.replace("FIRST", f"g = utils.{helper}()").replace("HELPER", helper)
        assert rows(project, {"d.py": src}) == [], helper


def test_a_create_once_helper_first_made_under_an_implied_test_is_silent(project):
    src = HEAD + ("def main():\n    if dist.is_initialized():\n        g = utils.get_global_group()\n"
                  "    if not dist.is_initialized() or dist.get_rank() == 0:\n        print(1)\n"
                  "    else:\n        g = utils.get_global_group()\n")
    assert rows(project, {"d.py": src}) == []


def test_a_create_once_helper_first_called_under_the_gate_is_still_reported(project):
    for helper in ("get_global_group", "cached_group"):
        src = MEMO.replace("FIRST", "pass").replace("HELPER", helper)
        assert rows(project, {"d.py": src}) == [("d.py", 10)], helper
    # the first call in a loop that may run no pass, or under a test this call's gate does not imply
    for first in ("for _ in range(n):\n        g = utils.get_global_group()",
                  "if n:\n        g = utils.get_global_group()"):
        src = MEMO.replace("FIRST", first).replace("HELPER", "get_global_group").replace("main()", "main(n)")
        assert len(rows(project, {"d.py": src})) == 1, first


def test_a_group_reset_elsewhere_is_no_create_once_guard(project):
    utils = UTILS + "\n\ndef reset():\n    global _GROUP\n    _GROUP = None\n"
    project.write({"utils.py": utils, "d.py": MEMO.replace("FIRST", "g = utils.cached_group()").replace(
        "HELPER", "cached_group")})
    assert [f.span.start.row for f in project.check(select=["DSL501"]).findings] == [10]


def test_a_pair_inside_a_rank_gate_is_still_reported(project):
    src = HEAD + ("def build(path):\n    if dist.get_rank() < 4:\n        if dist.get_rank() != 0:\n"
                  "            utils.global_barrier()\n        if dist.get_rank() == 0:\n"
                  "            utils.global_barrier()\n")
    assert rows(project, {"d.py": src}) == [("d.py", 9), ("d.py", 11)]
