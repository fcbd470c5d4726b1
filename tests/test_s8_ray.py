"""facts/ray_actors.py: a project class the program makes a Ray actor with the function form of
`ray.remote` (`ray.remote(num_gpus=1)(Learner)`, `ray.remote(Learner).options(num_gpus=1)`): Ray shows
each actor only the GPUs it grants, so cuda:0 in its methods is its own (DSL101, DSL104, DSL105)."""
from __future__ import annotations

LEARNER = (
    "import torch\nimport torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n\n"
    "class Learner:\n"
    "    def __init__(self, rank, world_size):\n"
    "        self.rank, self.world_size = rank, world_size\n"
    "        self.device = torch.device('cuda:0')\n\n"
    "    def setup(self, addr, port):\n"
    "        torch.cuda.set_device(0)\n"
    "        dist.init_process_group('nccl', init_method=f'tcp://{addr}:{port}', rank=self.rank,\n"
    "                                world_size=self.world_size)\n"
    "        self.model = DDP(torch.nn.Linear(8, 1).to(self.device), device_ids=[0])\n")
LEARNER_ROWS = [9, 12, 15]

DRIVER = (
    "import ray\n\nfrom rl.learner import Learner\n\n\n"
    "def main():\n"
    "    ray.init(address='auto')\n"
    "    LearnerActor = WRAP\n"
    "    learners = [START for rank in range(4)]\n"
    "    ray.get([l.setup.remote('h', 1234) for l in learners])\n\n\n"
    "if __name__ == '__main__':\n    main()\n")
README = "# ppo\n\n```bash\npython driver.py\n```\n"


def rows(project, code, path="rl/learner.py"):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code and f.path == path]


def driver(wrap="ray.remote(num_gpus=1, num_cpus=4)(Learner)", start="LearnerActor.remote(rank, 4)"):
    return DRIVER.replace("WRAP", wrap).replace("START", start)


def test_a_class_a_driver_wraps_in_a_one_gpu_ray_remote_owns_cuda_0(project):
    project.write({"rl/__init__.py": "", "rl/learner.py": LEARNER, "driver.py": driver(), "README.md": README})
    assert rows(project, "DSL101") == []
    # (a driver that names torch is checked without a launch line too)
    project.write({"driver.py": "import torch\n" + driver(), "README.md": "# ppo\n"})
    assert rows(project, "DSL101") == []


def test_ray_remote_of_the_class_started_with_options_num_gpus(project):
    wrap, start = "ray.remote(Learner)", "LearnerActor.options(num_gpus=1).remote(rank, 4)"
    project.write({"rl/__init__.py": "", "rl/learner.py": LEARNER, "driver.py": driver(wrap, start), "README.md": README})
    assert rows(project, "DSL101") == []


def test_the_same_module_function_form(project):
    own = LEARNER.replace("import torch\n", "import ray\nimport torch\n", 1) + (
        "\n\nLearnerActor = ray.remote(num_gpus=1)(Learner)\n\n"
        "if __name__ == '__main__':\n    ray.init()\n    actors = [LearnerActor.remote(r, 2) for r in range(2)]\n")
    project.write({"rl/__init__.py": "", "rl/learner.py": own})
    assert rows(project, "DSL101") == []


def test_a_ray_actor_without_gpus_or_another_class_is_still_reported(project):
    project.write({"rl/__init__.py": "", "rl/learner.py": LEARNER, "README.md": README,
                   "driver.py": driver("ray.remote(num_cpus=4)(Learner)")})
    assert rows(project, "DSL101") == LEARNER_ROWS  # (no GPU granted: Ray hides none)
    wrap, start = "ray.remote(Learner)", "LearnerActor.options(num_cpus=2).remote(rank, 4)"
    project.write({"driver.py": driver(wrap, start)})
    assert rows(project, "DSL101") == LEARNER_ROWS
    # a class of the same name in another module is not this one
    project.write({"driver.py": driver().replace("from rl.learner import Learner", "from other import Learner"),
                   "other.py": "class Learner:\n    pass\n"})
    assert rows(project, "DSL101") == LEARNER_ROWS


def test_a_wrapped_class_that_a_torchrun_script_also_builds_is_still_reported(project):
    project.write({"rl/__init__.py": "", "rl/learner.py": LEARNER, "driver.py": driver(), "README.md": README,
                   "train.py": "import os\n\nimport torch\n\nfrom rl.learner import Learner\n\n"
                               "learner = Learner(int(os.environ['RANK']), 4)\nlearner.setup('h', 1)\n",
                   "run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    assert rows(project, "DSL101") == LEARNER_ROWS


NO_DEVICE = (
    "import torch\nimport torch.distributed as dist\n\n\n"
    "class Worker:\n"
    "    def setup(self, addr, port, rank):\n"
    "        dist.init_process_group('nccl', init_method=f'tcp://{addr}:{port}', rank=rank, world_size=2)\n"
    "        self.w = torch.zeros(4).cuda()\n")


def test_dsl104_a_class_a_driver_wraps_in_ray_remote(project):
    files = {"w/__init__.py": "", "w/worker.py": NO_DEVICE, "README.md": README}
    body = "import ray\n\nfrom w.worker import Worker\n\nray.init()\nA = WRAP\nws = [A.remote() for _ in range(2)]\n"
    project.write({**files, "driver.py": body.replace("WRAP", "ray.remote(Worker)")})
    assert rows(project, "DSL104", "w/worker.py") == []
    project.write({"driver.py": body.replace("WRAP", "ray.remote(print)")})
    assert rows(project, "DSL104", "w/worker.py") == [7]


TOUCH = (
    "import torch\nimport torch.distributed as dist\n\n\n"
    "class Worker:\n"
    "    def setup(self, local_rank):\n"
    "        x = torch.zeros(4).cuda()\n"
    "        torch.cuda.set_device(local_rank)\n"
    "        dist.init_process_group('nccl')\n")


def test_dsl105_a_touch_in_a_one_gpu_actor_class(project):
    files = {"w/__init__.py": "", "w/worker.py": TOUCH, "README.md": README}
    body = "import ray\n\nfrom w.worker import Worker\n\nray.init()\nA = WRAP\nws = [A.remote() for _ in range(2)]\n"
    project.write({**files, "driver.py": body.replace("WRAP", "ray.remote(num_gpus=1)(Worker)")})
    assert rows(project, "DSL105", "w/worker.py") == []
    project.write({"driver.py": body.replace("WRAP", "ray.remote(num_gpus=1)(print)")})
    assert rows(project, "DSL105", "w/worker.py") == [7]
