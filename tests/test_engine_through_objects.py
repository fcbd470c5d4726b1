"""DSL502 on a DeepSpeed engine a module reaches through another object (`loop.engine`) without importing
DeepSpeed itself: a callback the trainer hands its loop. Collective when a program that runs the module
builds the engine."""
from __future__ import annotations

CALLBACK = ("import os\n\n\nclass PeriodicCheckpoint:\n"
            "    def __init__(self, save_dir):\n        self.save_dir = save_dir\n\n"
            "    def on_step_end(self, loop):\n"
            "        if loop.global_rank != 0:\n            return\n"
            "        loop.engine.save_checkpoint(self.save_dir, tag=str(loop.step))\n")
LOOP = ("import torch.distributed as dist\n\n\nclass Loop:\n"
        "    def __init__(self, engine, callbacks):\n"
        "        self.engine, self.callbacks = engine, callbacks\n"
        "        self.global_rank, self.step = dist.get_rank(), 0\n\n"
        "    def run(self, batches):\n"
        "        for batch in batches:\n"
        "            self.engine.backward(self.engine(batch).loss)\n            self.engine.step()\n"
        "            for cb in self.callbacks:\n                cb.on_step_end(self)\n")
MAIN = ("import deepspeed\nimport torch\n\nfrom callbacks import PeriodicCheckpoint\nfrom loop import Loop\n\n"
        "model = torch.nn.Linear(2, 2)\n"
        "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config='ds.json')\n"
        "Loop(engine, [PeriodicCheckpoint('ckpt')]).run([])\n")


def rows(project, main=MAIN):
    project.write({"callbacks.py": CALLBACK, "loop.py": LOOP, "main.py": main,
                   "ds.json": '{"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2}}\n',
                   "train.sh": "deepspeed --num_gpus 8 main.py\n"})
    return [(f.path, f.span.start.row, [r[0] for r in f.related])
            for f in project.check(select=["DSL502"]).findings if f.code == "DSL502"]


def test_a_callback_saving_the_loops_engine_on_rank_zero_only_hangs_a_deepspeed_program(project):
    assert rows(project) == [("callbacks.py", 11, ["main.py"])]


def test_without_a_deepspeed_engine_in_the_program_the_attribute_proves_nothing(project):
    other = MAIN.replace("import deepspeed\n", "").replace(
        "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config='ds.json')\n",
        "engine = model\n")
    assert rows(project, other) == []
