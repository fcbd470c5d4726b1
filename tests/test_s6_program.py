"""The program layer joins ranks and processes across modules: a rank that a helper of another module
returns (and which one), and multi-process evidence that lives in a method the entry script calls on
an instance of a project class."""
from __future__ import annotations

import ast

from dslint.facts.module_summary import summarise_module
from dslint.facts.script import build_script_facts


def _exports(source: str, path: str = "common/ranks.py"):
    return summarise_module(build_script_facts(path, source, ast.parse(source)))


def _found(project, code: str) -> list:
    return [f for f in project.check(select=[code]).findings if f.code == code]


TWO_NODES = "torchrun --nnodes 2 --nproc_per_node 4 fit.py\n"

RANKS = """\
import os
import torch.distributed as dist


def world_rank():
    if not dist.is_initialized():
        return 0
    return dist.get_rank()


def env_rank():
    return int(os.environ.get("RANK", 0))


def node_rank():
    return int(os.environ["LOCAL_RANK"])


def bring_up(backend="nccl"):
    dist.init_process_group(backend)
    return dist.get_world_size(), dist.get_rank(), int(os.environ["LOCAL_RANK"])


def maybe_rank():
    if os.environ.get("RANK"):
        return int(os.environ["RANK"])


def mixed():
    if os.environ.get("SLURM_PROCID"):
        return int(os.environ["SLURM_LOCALID"])
    return dist.get_rank()


def ranks():
    yield dist.get_rank()


def settings(cfg):
    return cfg.rank
"""


# -- what a module's summary says its functions return ---------------------------------------------

def test_the_summary_says_which_rank_a_function_returns():
    functions = _exports(RANKS).functions
    assert functions["world_rank"].returns_rank == ((None, "global"),)
    assert functions["env_rank"].returns_rank == ((None, "global"),)
    assert functions["node_rank"].returns_rank == ((None, "local"),)


def test_the_summary_says_which_element_of_a_returned_tuple_is_which_rank():
    assert _exports(RANKS).functions["bring_up"].returns_rank == ((1, "global"), (2, "local"))


def test_a_function_that_may_return_none_disagrees_or_yields_returns_no_rank():
    functions = _exports(RANKS).functions
    for name in ("maybe_rank", "mixed", "ranks", "settings"):
        assert name not in functions or functions[name].returns_rank == (), name


def test_a_module_without_rank_words_is_not_asked():
    source = "import torch\n\n\ndef pick(x):\n    return x\n"
    assert "pick" not in _exports(source).functions


# -- DSL103 through the program ---------------------------------------------------------------------

FIT = """\
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
{imports}


def main():
{body}
    net = DDP(torch.nn.Linear(8, 8).to(device), device_ids=[device])


if __name__ == "__main__":
    main()
"""


def _fit(project, imports: str, body: str, launch: str = TWO_NODES):
    return project.write({"common/__init__.py": "", "common/ranks.py": RANKS, "go.sh": launch,
                          "fit.py": FIT.format(imports=imports, body=body)})


def test_dsl103_on_the_global_rank_another_module_returns(project):
    _fit(project, "from common.ranks import world_rank", "    device = world_rank()")
    findings = _found(project, "DSL103")
    assert len(findings) == 2  # .to(device) and device_ids=[device]
    assert "returned by world_rank() of common/ranks.py" in findings[0].message
    assert "(the global rank)" not in findings[0].message
    assert any(path == "common/ranks.py" and span.start.row == 5 for path, span, _ in findings[0].related)


def test_dsl103_on_an_element_of_a_tuple_through_a_module_name(project):
    _fit(project, "from common import ranks", "    world, device, local = ranks.bring_up()")
    assert len(_found(project, "DSL103")) == 2


def test_an_environment_rank_through_int_is_the_global_rank(project):
    _fit(project, "from common.ranks import env_rank", "    device = int(env_rank())")
    assert len(_found(project, "DSL103")) == 2


def test_an_indexed_call_and_an_attribute_of_self_hold_the_helper_s_rank(make_project):
    _fit(indexed := make_project("indexed"), "from common.ranks import bring_up", "    device = bring_up()[1]")
    assert len(_found(indexed, "DSL103")) == 2
    held = make_project("held")
    held.write({"common/__init__.py": "", "common/ranks.py": RANKS, "go.sh": TWO_NODES,
                "fit.py": "import torch\nimport torch.distributed as dist\nfrom common.ranks import world_rank\n\n\n"
                          "class Runner:\n    def __init__(self):\n        dist.init_process_group('nccl')\n"
                          "        self.rank = world_rank()\n\n    def place(self, x):\n        return x.to(self.rank)\n\n\n"
                          "if __name__ == '__main__':\n    Runner().place(torch.zeros(1))\n"})
    [finding] = _found(held, "DSL103")
    assert finding.span.start.row == 12


def test_the_local_rank_or_an_unknown_return_of_a_helper_is_no_finding(make_project):
    cases = [("from common import ranks", "    world, rank, device = ranks.bring_up()"),
             ("from common.ranks import node_rank", "    device = node_rank()"),
             ("from common.ranks import mixed", "    device = mixed()"),
             ("from common.ranks import maybe_rank", "    device = maybe_rank()"),
             ("from common.ranks import settings", "    device = settings(None)"),
             ("from common.ranks import world_rank", "    device = world_rank() % torch.cuda.device_count()")]
    for i, (imports, body) in enumerate(cases):
        assert _found(_fit(make_project(f"case{i}"), imports, body), "DSL103") == [], body


def test_a_helper_s_global_rank_in_a_one_process_launch_is_no_finding(project):
    _fit(project, "from common.ranks import world_rank", "    device = world_rank()", "torchrun --nproc_per_node 1 fit.py\n")
    assert _found(project, "DSL103") == []


def test_a_module_without_evidence_of_its_own_is_flagged_in_a_program_of_several_processes(project):
    project.write({"common/__init__.py": "", "common/ranks.py": RANKS, "go.sh": TWO_NODES,
                   "place.py": "import torch\nfrom common.ranks import world_rank\n\n\n"
                               "def to_gpu(x):\n    return x.to(world_rank())\n",
                   "fit.py": "import torch.distributed as dist\nfrom place import to_gpu\n\n"
                             "dist.init_process_group('nccl')\nto_gpu(1)\n"})
    [finding] = _found(project, "DSL103")
    assert finding.path.endswith("place.py")
    assert any("runs as several processes" in note or "torchrun" in note for _, _, note in finding.related)


def test_the_same_module_helper_is_named_in_the_message(project):
    source = ("import torch\nimport torch.distributed as dist\n\n\ndef init():\n"
              "    dist.init_process_group('nccl')\n    return dist.get_rank(), dist.get_world_size()\n\n\n"
              "rank, world = init()\ntorch.cuda.set_device(rank)\n"
              "torch.cuda.set_device(dist.get_rank() if dist.is_initialized() else 0)\n")
    project.write({"fit.py": source, "go.sh": TWO_NODES})
    messages = sorted(f.message for f in _found(project, "DSL103"))
    assert len(messages) == 2
    assert "(returned by init())" in messages[0] and "(torch.distributed.get_rank())" in messages[1]


# -- multi-process evidence in a method of a project class ------------------------------------------

ENGINE = """\
import os
import torch
import torch.distributed as dist


class Engine:
    def __init__(self, cfg):
        self.cfg = cfg

    def start(self):
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))


class LocalEngine(Engine):
    def start(self):
        torch.cuda.set_device(0)


class TunedEngine(Engine):
    pass
"""

ENTRY = """\
import torch
from engine import {klass}


def main():
    state = torch.load("last.pt")
    run = {klass}({{}})
    run.start()


if __name__ == "__main__":
    main()
"""


def _engine(project, klass: str):
    return project.write({"engine.py": ENGINE, "run.py": ENTRY.format(klass=klass)})


def test_a_class_whose_method_starts_the_group_makes_its_program_multi_process(project):
    [finding] = _found(_engine(project, "Engine"), "DSL102")
    assert any(path == "engine.py" for path, _, _ in finding.related)


def test_a_method_inherited_from_a_project_base_counts(project):
    assert len(_found(_engine(project, "TunedEngine"), "DSL102")) == 1


def test_an_override_without_evidence_hides_the_base_s_method(project):
    assert _found(_engine(project, "LocalEngine"), "DSL102") == []


def test_a_chained_call_counts_and_an_instance_whose_method_is_never_called_does_not(make_project):
    chained = make_project("chained").write({"engine.py": ENGINE, "run.py": "import torch\nfrom engine import Engine\n\n"
                                             "if __name__ == '__main__':\n    torch.load('last.pt')\n    Engine({}).start()\n"})
    assert len(_found(chained, "DSL102")) == 1
    unused = make_project("unused").write({"engine.py": ENGINE, "run.py": "import torch\nfrom engine import Engine\n\n"
                                           "if __name__ == '__main__':\n    torch.load('last.pt')\n    run = Engine({})\n    print(run.cfg)\n"})
    assert _found(unused, "DSL102") == []


def test_program_evidence_names_the_method(project):
    from dslint.facts.program import ProgramIndex

    modules = {"engine.py": _exports(ENGINE, "engine.py"), "run.py": _exports(ENTRY.format(klass="Engine"), "run.py")}
    what, path, span = ProgramIndex(modules).program_evidence("run.py")
    assert (what, path, span.start.row) == ("calls torch.distributed.init_process_group", "engine.py", 11)
    modules["run.py"] = _exports(ENTRY.format(klass="LocalEngine"), "run.py")
    assert ProgramIndex(modules).program_evidence("run.py") is None
