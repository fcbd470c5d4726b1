"""DSL304 when the DDP wrapper reaches `.module(...)` through a parameter: a helper's argument,
or `self.net` stored from `__init__`, given by `Engine(ddp, ...)` in this module or another."""
from __future__ import annotations

HEAD = """import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
"""

ENGINE = """class Engine:
    def __init__(self, net, opt, amp=False):
        self.net = net
        self.opt = opt

    def step(self, batch):
        out = self.net.module(batch["x"].cuda())
        loss = out.float().mean()
        loss.backward()
        self.opt.step()

    @torch.no_grad()
    def predict(self, x):
        return self.net.module(x)
"""

SETUP = """
def setup():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
"""


def bypasses(project) -> list:
    return [(f.path, f.span.start.row) for f in project.check().findings if f.code == "DSL304"]


def test_self_attribute_stored_from_init_and_given_a_ddp_wrapper_in_this_module_is_flagged(project):
    project.write({"train.py": HEAD + ENGINE + SETUP + """
def main(net, batches):
    setup()
    wrapped = DistributedDataParallel(net.cuda())
    engine = Engine(wrapped, torch.optim.SGD(wrapped.parameters(), lr=0.1))
    for batch in batches:
        engine.step(batch)
"""})
    assert bypasses(project) == [("train.py", 12)]  # (predict, under no_grad, is not training)


def test_a_class_also_given_a_plain_module_is_not_flagged(project):
    project.write({"train.py": HEAD + ENGINE + SETUP + """
def main(net, batches, distributed):
    setup()
    wrapped = DistributedDataParallel(net.cuda())
    engine = Engine(wrapped if distributed else net, None)
    Engine(net=torch.nn.DataParallel(net), opt=None).step(batches[0])
"""})
    assert bypasses(project) == []


def test_a_helper_whose_every_call_passes_a_ddp_wrapper_is_flagged(project):
    project.write({"train.py": HEAD + SETUP + """

def train_step(model, x, opt):
    model.module(x).sum().backward()
    opt.step()


def main(net, xs):
    setup()
    ddp = DistributedDataParallel(net.cuda())
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    for x in xs:
        train_step(ddp, x, opt)
"""})
    assert bypasses(project) == [("train.py", 13)]


ENTRY = HEAD + SETUP + """
from engine import Engine


def main(net, batches):
    setup()
    ddp = DistributedDataParallel(net.cuda())
    engine = Engine({given}, torch.optim.SGD(ddp.parameters(), lr=0.1))
    for batch in batches:
        engine.step(batch)
"""


def test_a_class_in_another_module_given_a_ddp_wrapper_is_flagged_where_it_calls_module(project):
    project.write({"train.py": ENTRY.format(given="ddp"), "engine.py": "import torch\n\n\n" + ENGINE})
    assert bypasses(project) == [("engine.py", 10)]


def test_a_class_in_another_module_given_something_else_or_not_called_is_not_flagged(project):
    project.write({"train.py": ENTRY.format(given="net"), "engine.py": "import torch\n\n\n" + ENGINE})
    assert bypasses(project) == []
    project.write({"train.py": HEAD + SETUP, "engine.py": "import torch\n\n\n" + ENGINE})
    assert bypasses(project) == []


def test_a_class_given_a_plain_module_here_is_not_flagged_for_a_wrapper_given_elsewhere(project):
    local = HEAD + ENGINE + SETUP + """
def smoke(net, batch):
    Engine(net, None).step(batch)
"""
    project.write({"train.py": ENTRY.format(given="ddp").replace("from engine import Engine", "from local import Engine"),
                   "local.py": local})
    assert bypasses(project) == []
    project.write({"local.py": local.replace("Engine(net, None).step(batch)", "pass")})
    assert bypasses(project) == [("local.py", 12)]
