"""DSL102 in code that only some programs run (facts/program_reach.py), and per-rank files whose
names the callers of the loading function build (facts/rank_files.py)."""
from __future__ import annotations

TRAINER = (
    "import os\n\nimport torch\nimport torch.distributed as dist\n\nimport search\nBODY\n\n"
    "def main():\n"
    "    dist.init_process_group('nccl')\n"
    "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
    "    CALL\n\n\n"
    "if __name__ == '__main__':\n"
    "    main()\n")

DEMO = (
    "import sys\n\nimport torch\n\nfrom search.index import Finder\n\n\n"
    "class Page:\n"
    "    def __init__(self, where):\n"
    "        self.finder = Finder(where)\n\n"
    "    def answer(self, query):\n"
    "        with torch.no_grad():\n"
    "            return self.finder.nearest(query)\n\n\n"
    "if __name__ == '__main__':\n"
    "    print(Page(sys.argv[1]).answer(sys.argv[2]))\n")

# A search API class: its cache is read in a method its own __init__ calls.
INDEX = (
    "import torch\n\n\n"
    "DECORATORclass FinderBASE:\n"
    "    def __init__(self, where):\n"
    "        self.vectors = self.METHOD(where)\n\n"
    "    def METHOD(self, where):\n"
    "        return torch.load(where)\n\n"
    "    def nearest(self, query):\n"
    "        return self.vectors[query]\n")

PACKAGE = {"search/__init__.py": "from .index import Finder\n\n__all__ = ['Finder']\n"}


def _write(project, call="pass", body="", decorator="", method="_read_cache", demo=DEMO, base=""):
    project.write({**PACKAGE,
                   "search/index.py": INDEX.replace("DECORATOR", decorator).replace("METHOD", method)
                   .replace("BASE", base),
                   "demo.py": demo,
                   "train.py": TRAINER.replace("CALL", call).replace("BODY", body)})


def rows(project, code="DSL102"):
    return [(f.path, f.span.start.row) for f in project.check(select=[code]).findings if f.code == code]


def test_a_class_only_a_single_process_tool_builds_runs_in_no_multi_rank_program(project):
    _write(project)
    assert rows(project) == []


def test_the_trainer_building_the_class_keeps_the_finding(project):
    _write(project, call="search.Finder('cache.pt')")
    assert rows(project) == [("search/index.py", 9)]


def test_a_registered_class_may_be_built_from_a_config(project):
    _write(project, decorator="@REGISTRY.register()\n", body="REGISTRY = None\n")
    assert rows(project) == [("search/index.py", 10)]


def test_a_class_nothing_builds_is_not_proof_that_no_program_runs_it(project):
    _write(project, demo="import search\n\nif __name__ == '__main__':\n    print(search)\n")
    assert rows(project) == [("search/index.py", 9)]


def test_a_hook_a_framework_calls_by_name_keeps_the_finding(project):
    _write(project, method="before_run", decorator="from mmengine.hooks import Hook\n\n\n", base="(Hook)",
           call="search.Finder")
    assert rows(project) == [("search/index.py", 12)]


def test_a_trainer_that_builds_objects_from_strings_keeps_the_finding(project):
    _write(project, body="from hydra.utils import instantiate\n", call="instantiate({'_target_': 'search.Finder'})")
    assert rows(project) == [("search/index.py", 9)]


# A tagging model: a helper that loads a vocabulary, reached only through one of its methods.
VOCAB = "import torch\n\n\ndef embed_vocab(path):\n    return torch.load(path)\n"
TAGGER = (
    "import torch\n\nfrom .vocab import embed_vocab\n\n\n"
    "class Tagger(torch.nn.Module):\n"
    "    def use_vocab(self, path):\n"
    "        self.table = embed_vocab(path)\n")
TAG_DEMO = (
    "import sys\n\nimport torch\n\nfrom tagging.model import Tagger\n\n\n"
    "def serve(path):\n"
    "    tagger = torch.load(sys.argv[1], map_location='cpu')\n"
    "    tagger.use_vocab(path)\n\n\n"
    "if __name__ == '__main__':\n"
    "    serve(sys.argv[2])\n")
TAG_TRAIN = (
    "import os\n\nimport torch\nimport torch.distributed as dist\n\nfrom tagging.model import Tagger\n\n\n"
    "def main():\n"
    "    dist.init_process_group('nccl')\n"
    "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
    "    model = Tagger()\n"
    "    CALL\n\n\n"
    "if __name__ == '__main__':\n"
    "    main()\n")


def _tagging(project, call="pass"):
    project.write({"tagging/__init__.py": "", "tagging/vocab.py": VOCAB, "tagging/model.py": TAGGER,
                   "serve.py": TAG_DEMO, "train.py": TAG_TRAIN.replace("CALL", call)})


def test_a_method_only_a_single_process_tool_calls_through_an_instance_runs_there_alone(project):
    _tagging(project)
    assert rows(project) == []


def test_the_trainer_calling_the_method_keeps_the_finding(project):
    _tagging(project, call="model.use_vocab('vocab.pt')")
    assert rows(project) == [("tagging/vocab.py", 5)]


# A sharded optimizer state: each rank saves and restores its own shard; the names are built by the caller.
SHARDS = (
    "import torch\nimport torch.distributed as dist\n\n\n"
    "class ShardedState:\n"
    "    def __init__(self, optimizer):\n"
    "        self.optimizer = optimizer\n"
    "        self.group = dist.new_group()\n\n"
    "    def dump(self, filename):\n"
    "        torch.save(self.optimizer.state_dict(), filename)\n\n"
    "    def restore(self, filename):\n"
    "        self.optimizer.load_state_dict(torch.load(filename))\n")
CHECKPOINT = (
    "import os\n\nimport torch.distributed as dist\n\nfrom parallel import groups\n\n\n"
    "def resume(state, folder):\n"
    "    shard = groups.get_data_parallel_rank()\n"
    "    state.restore(os.path.join(folder, f'optim_{shard}.pt'))\n\n\n"
    "def resume_world(state, folder):\n"
    "    state.restore(folder + '/optim_' + str(dist.get_rank()) + '.pt')\n"
    "OTHER")


def _shards(project, other="", caller="resume"):
    project.write({"shards.py": SHARDS, "checkpoint.py": CHECKPOINT.replace("OTHER", other),
                   "parallel/__init__.py": "", "parallel/groups.py": "def get_data_parallel_rank():\n    return 0\n",
                   "train.py": "import os\n\nimport torch\nimport torch.distributed as dist\n\nimport checkpoint\n"
                               "import shards\n\n\nif __name__ == '__main__':\n    dist.init_process_group('nccl')\n"
                               "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
                               "    state = shards.ShardedState(torch.optim.SGD([torch.zeros(1)], lr=0.1))\n"
                               "    checkpoint.resume(state, 'out')\n    checkpoint.resume_world(state, 'out')\n"
                               f"    checkpoint.{caller}(state, 'out')\n"})


def test_a_loading_method_every_caller_gives_a_file_of_its_rank_reads_its_own_shard(project):
    _shards(project)
    assert rows(project) == []


def test_one_caller_passing_a_shared_file_keeps_the_finding(project):
    _shards(project, other="\n\ndef resume_latest(state, folder):\n    state.restore(os.path.join(folder, 'optim.pt'))\n",
            caller="resume_latest")
    assert rows(project) == [("shards.py", 14)]


def test_the_method_passed_on_unseen_keeps_the_finding(project):
    _shards(project, other="\n\nRESTORERS = []\n\n\ndef register(state):\n    RESTORERS.append(state.restore)\n",
            caller="register")
    assert rows(project) == [("shards.py", 14)]


# A multi-rank trainer with methods nothing calls: which of them may still run.
OWN = (
    "import os\n\nimport torch\nimport torch.distributed as dist\n\n\n"
    "class Searcher(BASE):\n"
    "    def search(self):\n"
    "        return 1\n\n"
    "    def METHOD(self):\n"
    "        return torch.load('state.pt')\n"
    "EXTRA\n\n"
    "def main():\n"
    "    dist.init_process_group('nccl')\n"
    "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
    "    Searcher().search()\n\n\n"
    "if __name__ == '__main__':\n"
    "    main()\n")


def _own(project, base="object", method="load_checkpoint", extra="", other=None):
    files = {"search.py": OWN.replace("BASE", base).replace("METHOD", method).replace("EXTRA", extra)}
    if other:
        files["other/tool.py"] = other
    project.write(files)


def test_a_method_of_a_plain_class_that_nothing_names_runs_in_no_program(project):
    _own(project)
    assert rows(project) == []


def test_a_plain_class_dispatching_on_getattr_self_may_run_any_method(project):
    _own(project, extra="\n    def run(self, name):\n        return getattr(self, name)()\n")
    assert rows(project) == [("search.py", 12)]


def test_a_method_named_by_a_string_in_getattr_is_called(project):
    project.write({"search.py": OWN.replace("BASE", "object").replace("METHOD", "load_checkpoint").replace("EXTRA", "")
                   .replace("return 1", "return getattr(self, 'load_checkpoint')()")})
    assert rows(project) == [("search.py", 12)]


def test_a_method_named_by_a_string_that_another_module_dispatches_through_getattr_is_called(project):
    hooks = ("import torch\n\n\nclass Resume:\n"
             "    def before_run(self, trainer):\n"
             "        trainer.state = torch.load('latest.pth')\n")
    loop = ("import torch.distributed as dist\n\n\nclass Loop:\n"
            "    def __init__(self, hooks):\n        self.hooks = hooks\n\n"
            "    def call(self, name):\n"
            "        for hook in self.hooks:\n            getattr(hook, LOOKUP)(self)\n\n"
            "    def fit(self):\n        self.call('before_run')\n")
    train = ("import os\n\nimport torch\nimport torch.distributed as dist\n\nfrom hooks import Resume\nfrom loop import Loop\n\n"
             "if __name__ == '__main__':\n"
             "    dist.init_process_group('nccl')\n"
             "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
             "    Loop([Resume()]).fit()\n")
    files = {"hooks.py": hooks, "loop.py": loop.replace("LOOKUP", "name"), "train.py": train,
             "run.sh": "torchrun --nproc_per_node 4 train.py\n"}
    project.write(files)
    assert rows(project) == [("hooks.py", 6)]
    project.write({**files, "loop.py": loop.replace("LOOKUP", "'after_run'")})  # a literal lookup names one method
    assert rows(project) == []


def test_torch_calls_only_its_own_methods_on_a_module_subclass(project):
    _own(project, base="torch.nn.Module", method="init_weights")
    assert rows(project) == []
    _own(project, base="torch.nn.Module", method="forward")
    assert rows(project) == [("search.py", 12)]


def test_a_library_base_may_call_any_method_by_name(project):
    _own(project, base="Callback", method="load_checkpoint", extra="\n\nfrom lightning.pytorch import Callback\n")
    assert rows(project) == [("search.py", 12)]


def test_a_call_in_a_program_that_never_imports_the_class_is_no_call(project):
    other = "import torch\n\n\ndef main(engine):\n    engine.load_checkpoint('x')\n\n\nif __name__ == '__main__':\n    main(None)\n"
    _own(project, other=other)
    assert rows(project) == []
    _own(project, other=other.replace("import torch\n", "import torch\nimport search\n"))
    assert rows(project) == [("search.py", 12)]


# A library module whose own mp.spawn starts the ranks: only what the spawned function reaches runs in them.
QUICK = (
    "import torch\nimport torch.distributed as dist\nimport torch.multiprocessing as mp\n\n\n"
    "def worker(rank, world):\n"
    "    dist.init_process_group('nccl', rank=rank, world_size=world)\n"
    "    torch.cuda.set_device(rank)\n"
    "    train(rank)\n\n\n"
    "def train(rank):\n"
    "    return TRAIN_LOAD\n\n\n"
    "def run(world):\n"
    "    mp.spawn(worker, args=(world,), nprocs=world)\n\n\n"
    "def load_for_tools(path):\n"
    "    return torch.load(path)\n")
TOOL = "import sys\n\nfrom quick import load_for_tools\n\nif __name__ == '__main__':\n    print(load_for_tools(sys.argv[1]))\n"


def test_a_load_only_tools_call_is_not_in_the_spawned_ranks(project):
    project.write({"quick.py": QUICK.replace("TRAIN_LOAD", "rank"), "tools/show.py": TOOL,
                   "main.py": "from quick import run\n\nrun(2)\n"})
    assert rows(project) == []


def test_a_load_the_spawned_function_reaches_is_in_every_rank(project):
    project.write({"quick.py": QUICK.replace("TRAIN_LOAD", "torch.load('ckpt.pt')"), "tools/show.py": TOOL,
                   "main.py": "from quick import run\n\nrun(2)\n"})
    assert rows(project) == [("quick.py", 13)]


def test_a_file_named_by_the_rank_modulo_the_world_size_is_the_ranks_own(project):
    script = ("import torch\nimport torch.distributed as dist\n\n\n"
              "def main(path):\n"
              "    dist.init_process_group('nccl')\n"
              "    world_size = dist.get_world_size()\n"
              "    rank = dist.get_rank() % MODULUS\n"
              "    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())\n"
              "    state = torch.load(f'{path}/part-{rank}.pt')\n"
              "    return state\n\n\n"
              "if __name__ == '__main__':\n    main('ckpt')\n")
    launch = {"run.sh": "torchrun --nproc_per_node 4 serve.py\n"}
    project.write({"serve.py": script.replace("MODULUS", "world_size"), **launch})
    assert rows(project) == []
    project.write({"serve.py": script.replace("MODULUS", "2"), **launch})  # two ranks share each file
    assert rows(project) == [("serve.py", 10)]
