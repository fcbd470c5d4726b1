"""Three facts: a file saved from a project class's tensor-free state_dict() holds no GPU tensors
(DSL102); DDP around a model the file never trains and only calls under no-grad (DSL305); a helper's
DeepSpeed save on a parameter that the program's callers pass an engine for (DSL502)."""
from __future__ import annotations

HEAD = "import os\n\nimport torch\nimport torch.distributed as dist\n\n"
JOIN = ("\nif __name__ == '__main__':\n    dist.init_process_group('nccl')\n"
        "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n    print(restore('out'))\n")


def rows(project, code):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


# -- facts/loads.py: a project class's state_dict() of plain fields ---------------------------------

COUNTERS = HEAD + (
    "from dataclasses import dataclass\nfrom typing import Any, Dict, Optional\n\n\n"
    "@dataclass\n"
    "class Counters:\n"
    "    FIELDS\n\n"
    "    def state_dict(self):\n"
    "        '''What resumes the loop.'''\n"
    "        return {'epoch': self.epoch, 'extra': self.extra, 'version': 2}\n\n\n"
    "def store(BINDING, where):\n"
    "    BODY\n"
    "    torch.save(counters.state_dict(), os.path.join(where, 'loop_counters.bin'))\n\n\n"
    "def restore(where):\n"
    "    return torch.load(os.path.join(where, 'loop_counters.bin'))\n") + JOIN


def counters(fields="epoch: int\n    extra: Optional[Dict[str, float]] = None", binding="counters: Counters",
             body="pass"):
    return COUNTERS.replace("FIELDS", fields).replace("BINDING", binding).replace("BODY", body)


def test_a_saved_state_dict_of_plain_fields_holds_no_gpu_tensor(project):
    for fields, binding, body in (
            ("epoch: int\n    extra: Optional[Dict[str, float]] = None", "counters: Counters", "pass"),
            ("epoch: int\n    extra: 'int | None' = None".replace("'", ""), "counters: 'Counters'", "pass"),
            ("epoch: int\n    extra: tuple[int, ...] = ()", "epoch", "counters = Counters(epoch, ())"),
            ("epoch: int\n    extra: Optional[dict[str, Any]] = None".replace("extra", "sampler_state"), "counters: Counters",
             "pass")):
        text = counters(fields, binding, body).replace("self.extra", "self.sampler_state" if "sampler" in fields
                                                       else "self.extra")
        project.write({"loop.py": text})
        assert rows(project, "DSL102") == [], (fields, binding)


def test_a_field_that_may_hold_a_tensor_keeps_the_finding(project):
    for fields in ("epoch: int\n    extra: torch.Tensor = None",
                   "epoch: int\n    extra: Optional[Dict[str, Any]] = None",  # Any, and no loader's state
                   "epoch: int\n    extra: 'Optional[int]' = None",  # a quoted annotation: unread
                   "epoch: int\n    extra = None"):  # no annotation
        project.write({"loop.py": counters(fields)})
        assert rows(project, "DSL102") == [26], fields


def test_the_instance_must_be_known_to_be_of_the_class(project):
    for binding, body in (("counters", "pass"),  # no annotation
                          ("counters: Counters", "counters = make()"),  # rebound
                          ("counters: Counters", "for counters in []: pass"),
                          ("counters: dict", "pass")):
        project.write({"loop.py": counters(binding=binding, body=body)})
        assert rows(project, "DSL102") == [26], (binding, body)
    subclass = "\n\nclass Tensors(Counters):\n    def state_dict(self):\n        return {'w': torch.ones(1).cuda()}\n"
    project.write({"loop.py": counters().replace("\n\ndef store", subclass + "\n\ndef store")})
    assert rows(project, "DSL102"), "a subclass may override state_dict"


def test_a_state_dict_that_is_no_dict_of_fields_keeps_the_finding(project):
    for returned in ("{'epoch': self.epoch, 'w': self.weights()}", "{'epoch': self.epoch, **self.__dict__}",
                     "dict(epoch=self.epoch)"):
        text = counters().replace("{'epoch': self.epoch, 'extra': self.extra, 'version': 2}", returned)
        project.write({"loop.py": text})
        assert rows(project, "DSL102") == [26], returned


# -- rules/distributed.py: DDP that the file only calls under no-grad -------------------------------

SCORE = HEAD + (
    "from torch.nn.parallel import DistributedDataParallel\n\n\n"
    "def score(rank):\n"
    "    scorer = torch.nn.Sequential(torch.nn.Linear(32, 1)).to(rank)\n"
    "    scorer.load_state_dict(torch.load('scorer.pt', map_location='cpu'))\n"
    "    wrapped = DistributedDataParallel(scorer, device_ids=[rank])\n"
    "    USES\n"
    "    return total\n\n\n"
    "if __name__ == '__main__':\n"
    "    dist.init_process_group('nccl')\n"
    "    score(int(os.environ['LOCAL_RANK']))\n")
NO_GRAD_CALL = "with torch.no_grad():\n        total = wrapped(torch.ones(4, 32).cuda()).sum()"


def test_ddp_only_called_under_no_grad_in_a_file_that_never_trains(project):
    for uses in (NO_GRAD_CALL, "wrapped.eval()\n    " + NO_GRAD_CALL):
        project.write({"score.py": SCORE.replace("USES", uses)})
        assert rows(project, "DSL305") == [12], uses


def test_ddp_that_may_train_is_not_reported(project):
    for uses in (
            NO_GRAD_CALL.replace("with torch.no_grad():\n       ", ""),  # a call with gradients
            NO_GRAD_CALL + "\n    total.backward()",  # backward anywhere in the file
            NO_GRAD_CALL + "\n    torch.optim.SGD(scorer.parameters(), lr=0.1)",  # an optimizer
            NO_GRAD_CALL + "\n    fine_tune(scorer)",  # the wrapped model handed to other code
            NO_GRAD_CALL + "\n    other = scorer.cuda()",  # an alias of it
            NO_GRAD_CALL + "\n    keep(wrapped)",  # the wrapper handed to other code
            "total = 0"):  # never called
        project.write({"score.py": SCORE.replace("USES", uses)})
        assert rows(project, "DSL305") == [], uses


def test_a_wrapped_parameter_is_not_reported(project):
    text = SCORE.replace("def score(rank):\n    scorer = torch.nn.Sequential(torch.nn.Linear(32, 1)).to(rank)",
                         "def score(rank, scorer):").replace("score(int(os.environ['LOCAL_RANK']))",
                                                             "score(0, torch.nn.Linear(32, 1))")
    project.write({"score.py": text.replace("USES", NO_GRAD_CALL)})
    assert rows(project, "DSL305") == []


# -- facts/collectives.py: a DeepSpeed save on a helper's parameter ---------------------------------

SNAPSHOT = (
    "import os\n\n\n"
    "def is_rank_zero():\n    return int(os.environ.get('RANK', '0')) == 0\n\n\n"
    "def snapshot(tag, runner, every=100):\n"
    "    if not is_rank_zero():\n"
    "        return\n"
    "    runner.save_checkpoint('snapshots', tag=tag)\n")
LOOP = (
    "import deepspeed\nimport torch\n\nfrom tools.snap import snapshot\n\n"
    "net = torch.nn.Linear(4, 4)\n"
    "ds, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config='ds.json')\n"
    "for i in range(10):\n"
    "    CALL\n")


def test_a_helper_saves_an_engine_its_caller_passes_under_a_rank_gate(project):
    for call in ("snapshot(i, ds)", "snapshot(tag=i, runner=ds)"):
        project.write({"tools/__init__.py": "", "tools/snap.py": SNAPSHOT, "loop.py": LOOP.replace("CALL", call),
                       "ds.json": '{"train_batch_size": 8}'})
        found = [f for f in project.check(select=["DSL502"]).findings if f.code == "DSL502"]
        assert [(f.path.replace("\\", "/"), f.span.start.row) for f in found] == [("tools/snap.py", 11)], call
        assert "loop.py:9" in found[0].message


def test_a_helper_given_no_engine_is_not_reported(project):
    for call in ("snapshot(i, net)",  # the model, not the engine
                 "snapshot(ds, i)",  # the engine for another parameter
                 "snapshot(i, net, every=ds)"):
        project.write({"tools/__init__.py": "", "tools/snap.py": SNAPSHOT, "loop.py": LOOP.replace("CALL", call),
                       "ds.json": '{"train_batch_size": 8}'})
        assert rows(project, "DSL502") == [], call
    rebound = SNAPSHOT.replace("    if not is_rank_zero():", "    runner = runner.module\n    if not is_rank_zero():")
    project.write({"tools/snap.py": rebound, "loop.py": LOOP.replace("CALL", "snapshot(i, ds)")})
    assert rows(project, "DSL502") == []
