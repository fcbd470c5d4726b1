#!/usr/bin/env python3
"""Which CUDA calls in a parent poison a forked child (DSL107), on a real GPU.

    python bench/fork_after_cuda_gpu.py            # on the GPU machine; prints one JSON line per call

For each call, a fresh parent runs it, forks a child with torch.multiprocessing.start_processes(
start_method="fork"), and the child calls torch.cuda.set_device(0) and allocates a tensor: "ok", or the
first line of the error the child raised.
"""
import json
import subprocess
import sys

CALLS = {
    "nothing": "pass",
    "torch.cuda.is_available()": "torch.cuda.is_available()",
    "torch.cuda.device_count()": "torch.cuda.device_count()",
    "torch.cuda.get_device_properties(0)": "torch.cuda.get_device_properties(0)",
    "torch.cuda.get_device_name(0)": "torch.cuda.get_device_name(0)",
    "torch.cuda.get_device_capability(0)": "torch.cuda.get_device_capability(0)",
    "torch.cuda.current_device()": "torch.cuda.current_device()",
    "torch.cuda.memory_allocated()": "torch.cuda.memory_allocated()",
    "torch.zeros(1).cuda()": "torch.zeros(1).cuda()",
}
CHILD = """
import sys, torch, torch.multiprocessing as mp
def work(i):
    try:
        torch.cuda.set_device(0)
        torch.zeros(1, device="cuda")
        print("CHILD ok", flush=True)
    except Exception as e:
        print("CHILD " + str(e).splitlines()[0], flush=True)
{call}
mp.start_processes(work, nprocs=1, start_method="fork")
"""

for name, call in CALLS.items():
    out = subprocess.run([sys.executable, "-c", CHILD.format(call=call)], capture_output=True, text=True, timeout=120)
    line = next((l[6:] for l in out.stdout.splitlines() if l.startswith("CHILD ")), (out.stderr.strip().splitlines() or ["?"])[-1])
    print(json.dumps({"parent_call": name, "child": line}), flush=True)
