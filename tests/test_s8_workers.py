"""DSL204 on the loaders a factory of an imported module builds, and counts given through `**KW`."""
from __future__ import annotations

TRAIN = ("import os\n\nimport torch\nimport torch.distributed as dist\n\nfrom data.factory import build_loader\n\n"
         "local_rank = int(os.environ['LOCAL_RANK'])\ntorch.cuda.set_device(local_rank)\n"
         "dist.init_process_group('nccl')\nds = torch.utils.data.TensorDataset(torch.randn(100, 3))\n"
         "CALL\nfor epoch in range(3):\n    loader.sampler.set_epoch(epoch)\n    for (x,) in loader:\n        pass\n")
FACTORY = ("import os\nfrom torch.utils.data import DataLoader, DistributedSampler\n\nCONSTANTS\n\n"
           "def build_loader(ds, batch_size, workers=4):\n"
           "    return DataLoader(ds, batch_size=batch_size, sampler=DistributedSampler(ds), WORKERS)\n")


def findings(project, call="loader = build_loader(ds, 32)", workers="num_workers=os.cpu_count()", constants=""):
    project.write({"train.py": TRAIN.replace("CALL", call), "data/__init__.py": "",
                   "data/factory.py": FACTORY.replace("WORKERS", workers).replace("CONSTANTS", constants),
                   "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL204"]).findings if f.code == "DSL204"]


def test_a_factory_of_an_imported_module_sizing_workers_for_the_machine(project):
    assert findings(project) == [("data/factory.py", 7)]


def test_a_factory_the_program_never_calls_is_not_reported(project):
    assert findings(project, call="loader = torch.utils.data.DataLoader(ds, batch_size=32)") == []


def test_a_count_the_factory_takes_from_its_parameter_is_the_callers(project):
    # (the caller may pass any count: the factory's default alone proves nothing)
    assert findings(project, workers="num_workers=workers") == []


def test_a_count_given_through_a_module_dict_splatted_into_the_loader(project):
    constants = "LOADER_KW = {'num_workers': os.cpu_count(), 'pin_memory': True}"
    assert findings(project, workers="**LOADER_KW", constants=constants) == [("data/factory.py", 4)]


def test_a_splatted_dict_whose_count_a_later_keyword_replaces_is_not_read_as_the_dicts(project):
    constants = "LOADER_KW = {'num_workers': os.cpu_count()}\nLOADER_KW['num_workers'] = 2"
    assert findings(project, workers="**LOADER_KW", constants=constants) == []


KW_FACTORY = ("import os\nfrom torch.utils.data import DataLoader, DistributedSampler\n\n"
              "DEFAULTS = {'batch_size': 32, 'num_workers': os.cpu_count(), 'pin_memory': True}\n\n\n"
              "def make_loader(ds, **overrides):\n"
              "    opts = COPY\n"
              "    opts.update(overrides)\n"
              "    return DataLoader(ds, sampler=DistributedSampler(ds), **opts)\n")
KW_TRAIN = TRAIN.replace("from data.factory import build_loader", "from data import make_loader")


def kw_findings(project, call="loader = make_loader(ds, batch_size=64)", copy="dict(DEFAULTS)", after=""):
    project.write({"train.py": KW_TRAIN.replace("CALL", call), "data/__init__.py": "from .loaders import make_loader\n",
                   "data/loaders.py": KW_FACTORY.replace("COPY", copy) + after,
                   "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL204"]).findings if f.code == "DSL204"]


def test_a_module_dict_of_defaults_updated_with_the_callers_keywords_keeps_a_count_no_caller_passes(project):
    assert kw_findings(project) == [("data/loaders.py", 4)]
    assert kw_findings(project, copy="DEFAULTS.copy()") == [("data/loaders.py", 4)]
    assert kw_findings(project, copy="{**DEFAULTS}") == [("data/loaders.py", 4)]


def test_a_caller_passing_the_count_or_unseen_keywords_leaves_it_the_callers(project):
    assert kw_findings(project, call="loader = make_loader(ds, num_workers=2)") == []
    assert kw_findings(project, call="loader = make_loader(ds, **{'num_workers': 2})") == []
    # a call in the factory's own module that passes it
    assert kw_findings(project, after="\n\ndef small(ds):\n    return make_loader(ds, num_workers=1)\n") == []
    # the dict changed otherwise than by the callers' keywords
    assert kw_findings(project, after="\n\nDEFAULTS['num_workers'] = 2\n") == []
