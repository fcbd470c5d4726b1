"""Facts found missing on real repositories (second widening of the ecosystem): a rank compared
with a bound every rank is past, a method of the evaluator's own class that is no model forward,
helpers of unit tests, per-rank files read back by the rank that wrote them, pytest files."""
from __future__ import annotations

HEAD = "import os\n\nimport torch\nimport torch.distributed as dist\n\n"
SETUP = ("\ndist.init_process_group('nccl')\nlocal_rank = int(os.environ['LOCAL_RANK'])\n"
         "torch.cuda.set_device(local_rank)\n")


def rows(project, code):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


# -- facts/conditions.py: a comparison every rank answers alike -------------------------------------

SYNC = HEAD + (
    "class Sharded:\n"
    "    def __init__(self, tensors, rank=-1):\n"
    "        self.tensors, self.rank = tensors, rank\n\n"
    "    def sync(self, owner):\n"
    "        if TEST:\n"
    "            for t in self.tensors:\n"
    "                dist.broadcast(t, owner)\n\n\n"
    "Sharded([torch.ones(1)], rank=dist.get_rank()).sync(0)\n") + SETUP


def test_a_rank_compared_with_a_bound_below_every_rank_is_no_gate(project):
    for test in ("owner > -1 and self.rank >= 0", "0 <= self.rank", "not self.rank < 0"):
        project.write({"sync.py": SYNC.replace("TEST", test)})
        assert rows(project, "DSL501") == [], test


def test_a_rank_compared_with_a_bound_some_ranks_pass_is_still_a_gate(project):
    for test in ("self.rank >= 1", "self.rank < 2", "0 == self.rank"):
        project.write({"sync.py": SYNC.replace("TEST", test)})
        assert rows(project, "DSL501") == [13], test


# -- rules/memory.py: DSL401 -------------------------------------------------------------------------

EVALUATOR = HEAD + (
    "def score_batches(net, batches):\n"
    "    with torch.no_grad():\n"
    "        return [net(b) for b in batches]\n\n\n"
    "class Evaluator:\n"
    "    @staticmethod\n"
    "    def unwrap_model(net):\n"
    "        return getattr(net, 'module', net)\n\n"
    "    def evaluate(self, net, val_loaders):\n"
    "        scores = []\n"
    "        for batches in val_loaders:\n"
    "            CALL\n"
    "            scores.append(score_batches(inner, batches))\n"
    "        return scores\n")


def test_a_method_of_the_evaluators_own_class_is_no_forward(project):
    project.write({"evaluator.py": EVALUATOR.replace("CALL", "inner = self.unwrap_model(net)")})
    assert rows(project, "DSL401") == []


def test_the_model_run_in_the_same_loop_is_still_a_forward(project):
    project.write({"evaluator.py": EVALUATOR.replace("CALL", "inner = net.module; net.module(batches)")})
    assert rows(project, "DSL401") == [19]


HELPER = HEAD + (
    "class EncoderChecks:\n"
    "    def build(self):\n"
    "        self.encoder = torch.nn.Linear(3, 3)\n\n"
    "    def _probe(self, batch):\n"
    "        self.encoder.eval()\n"
    "        return self.encoder(batch)\n\n"
    "    def test_one_row(self):\n"
    "        assert self._probe(torch.zeros(1, 3)).shape == (1, 3)\n\n"
    "    def test_many_rows(self):\n"
    "        assert self._probe(torch.zeros(5, 3)).shape == (5, 3)\n")


def test_a_helper_only_test_functions_call_is_a_unit_test(project):
    project.write({"checks.py": HELPER})
    assert rows(project, "DSL401") == []


def test_a_helper_a_non_test_function_also_calls_is_checked(project):
    project.write({"checks.py": HELPER + "\n    def report(self, batch):\n        return self._probe(batch)\n"})
    assert rows(project, "DSL401") == [12]


# -- rules/placement.py: DSL102 on a per-rank file ---------------------------------------------------

STATE = HEAD + (
    "class Memory:\n"
    "    def open(self, folder):\n"
    "        if BRANCH:\n"
    "            self.path = os.path.join(folder, f'memory_{dist.get_rank()}.pt')\n"
    "        else:\n"
    "            self.path = os.path.join(folder, 'memory.pt')\n"
    "        if os.path.exists(self.path):\n"
    "            self.bank = torch.load(self.path)\n\n"
    "    def close(self, bank):\n"
    "        torch.save(bank, self.path)\n") + SETUP + "Memory().open('state')\n"


def test_a_file_named_by_the_global_rank_is_read_back_by_its_writer(project):
    project.write({"memory.py": STATE.replace("BRANCH", "dist.get_world_size() > 1")})
    assert rows(project, "DSL102") == []


def test_a_shared_file_on_the_other_side_of_a_branch_not_about_distribution_is_flagged(project):
    project.write({"memory.py": STATE.replace("BRANCH", "folder.endswith('per_rank')")})
    assert rows(project, "DSL102") == [13]


def test_a_file_named_without_the_rank_is_flagged(project):
    project.write({"memory.py": STATE.replace("BRANCH", "True").replace("{dist.get_rank()}", "latest")})
    assert rows(project, "DSL102") == [13]


# -- rules/placement.py: DSL101/DSL103 in pytest files -----------------------------------------------

PYTEST = HEAD + (
    "from torch.nn.parallel import DistributedDataParallel\n\n\n"
    "def test_two_ranks_agree():\n"
    "    gpu = dist.get_rank()\n"
    "    net = DistributedDataParallel(torch.nn.Linear(2, 2).cuda(gpu), device_ids=[gpu])\n"
    "    net(torch.ones(1, 2, device=gpu))\n\n\n"
    "def test_one_gpu_forward():\n"
    "    where = 'cuda:0'\n"
    "    torch.nn.Linear(2, 2).to(where)(torch.ones(1, 2, device=where))\n")


def test_a_pytest_file_reports_neither_the_global_rank_nor_a_fixed_gpu(project):
    project.write({"checks/test_layers.py": PYTEST})
    assert rows(project, "DSL103") == [] and rows(project, "DSL101") == []


def test_the_same_code_in_a_training_script_is_reported(project):
    project.write({"layers.py": PYTEST})
    assert rows(project, "DSL103") and rows(project, "DSL101")
