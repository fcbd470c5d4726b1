"""DSL501: a closure's rank-0 collective that the other ranks make in the other branch of the
caller's own rank test (the LBFGS signal protocol: `optimizer.step(closure)` on rank 0, the other
ranks broadcasting in a loop)."""
from __future__ import annotations

LBFGS = '''import os

import torch
import torch.distributed as dist


def take_step(model, optimizer, rank, distributed):
    signal = torch.zeros(1)

    def closure():
        if distributed:
            if rank == 0:
                signal.fill_(1)
                dist.broadcast(signal, src=0)
            for param in model.parameters():
                dist.broadcast(param.data, src=0)
        optimizer.zero_grad()
        loss = model(torch.ones(4)).sum()
        loss.backward()
        return loss

    if distributed:
        if rank == 0:
            loss = optimizer.step(closure)
            signal.fill_(0)
            dist.broadcast(signal, src=0)
        else:
            while True:
                dist.broadcast(signal, src=0)  # PEER
                if signal.item() == 0:
                    break
                if signal.item() == 1:
                    loss = closure()
    else:
        loss = optimizer.step(closure)
    return loss


if __name__ == "__main__":
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = torch.nn.Linear(4, 1)
    take_step(model, torch.optim.LBFGS(model.parameters()), dist.get_rank(), True)
'''


def rows(project, text):
    project.write({"train.py": text})
    return [f.span.start.row for f in project.check(select=["DSL501"]).findings if f.code == "DSL501"]


def test_a_closure_broadcast_that_the_other_ranks_receive_in_the_else_loop_is_silent(project):
    assert rows(project, LBFGS) == []
    # called directly rather than handed to optimizer.step, and the peer without a loop
    direct = LBFGS.replace("loss = optimizer.step(closure)\n            signal", "loss = closure()\n            signal")
    assert rows(project, direct) == []


def test_a_closure_broadcast_without_its_peer_is_still_reported(project):
    # the other ranks broadcast from another root
    assert rows(project, LBFGS.replace("dist.broadcast(signal, src=0)  # PEER", "dist.broadcast(signal, src=1)")) == [14]
    # the other ranks' broadcast sits under a further test
    guarded = LBFGS.replace("                dist.broadcast(signal, src=0)  # PEER",
                            "                if signal.sum() > 0:\n                    dist.broadcast(signal, src=0)")
    assert rows(project, guarded) == [14]
    # a call of the closure outside the rank test: rank 0 broadcasts alone there
    alone = LBFGS.replace("    else:\n        loss = optimizer.step(closure)", "    loss = optimizer.step(closure)")
    assert rows(project, alone) == [14]
    # the closure rebinds the rank it tests
    rebound = LBFGS.replace("        if distributed:\n            if rank == 0:",
                            "        rank = dist.get_rank()\n        if distributed:\n            if rank == 0:")
    assert rows(project, rebound) == [15]
    # the closure is stored away: where it runs is unknown
    stored = LBFGS.replace("    if distributed:\n        if rank == 0:", "    model.hook = closure\n    if distributed:\n"
                           "        if rank == 0:")
    assert rows(project, stored) == [14]
