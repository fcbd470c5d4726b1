"""DSL107 when CUDA is started before a fork by a helper (of another module or this one), or by a
runtime query after which a forked child cannot use CUDA (get_device_properties; is_available unless
PYTORCH_NVML_BASED_CUDA_CHECK=1), not by the NVML-backed device_count (measured: bench/fork_after_cuda_gpu.py)."""
from __future__ import annotations

TRAIN = ("import torch\nimport torch.multiprocessing as mp\n\nfrom tools.probe import probe\n\n\n"
         "def worker(rank):\n    torch.cuda.set_device(rank)\n\n\n"
         "def main():\n    BEFORE\n    mp.start_processes(worker, nprocs=2, start_method='fork')\n    AFTER\n\n\n"
         "if __name__ == '__main__':\n    main()\n")


def findings(project, body="return torch.cuda.get_device_properties(0).total_memory", before="probe()",
             after="pass"):
    project.write({"tools/__init__.py": "", "tools/probe.py": f"import torch\n\n\ndef probe():\n    {body}\n",
                   "train.py": TRAIN.replace("BEFORE", before).replace("AFTER", after)})
    return [(f.path, f.span.start.row, f.message) for f in project.check(select=["DSL107"]).findings]


def test_a_helper_of_another_module_that_starts_cuda_before_the_fork(project):
    ((path, row, message),) = findings(project)
    assert (path, row) == ("train.py", 13)
    assert "probe() (line 12)" in message and "get_device_properties()" in message and "probe.py:5" in message


def test_a_helper_that_only_counts_devices_or_runs_after_the_fork_is_not_reported(project):
    assert findings(project, body="return torch.cuda.device_count()") == []
    assert findings(project, body="return torch.cuda.memory_allocated()") == []
    assert findings(project, before="pass", after="probe()") == []


def test_a_runtime_query_in_the_script_itself_and_a_local_helper(project):
    ((_, row, message),) = findings(project, before="torch.cuda.get_device_name(0)")
    assert row == 13 and "get_device_name()" in message
    local = TRAIN.replace("from tools.probe import probe\n", "\n\ndef warm():\n    torch.zeros(1).cuda()\n")
    project.write({"train.py": local.replace("BEFORE", "warm()").replace("AFTER", "pass")})
    ((_, _, message),) = [(f.path, f.span.start.row, f.message) for f in project.check(select=["DSL107"]).findings]
    assert "warm() (.cuda())" in message


def test_is_available_poisons_the_fork_unless_it_asks_nvml(project):
    ((_, _, message),) = findings(project, body="return torch.cuda.is_available()")
    assert "is_available()" in message
    nvml = "import os\nos.environ['PYTORCH_NVML_BASED_CUDA_CHECK'] = '1'\n"
    project.write({"tools/probe.py": nvml + "import torch\n\n\ndef probe():\n    return torch.cuda.is_available()\n"})
    assert [f for f in project.check(select=["DSL107"]).findings] == []
