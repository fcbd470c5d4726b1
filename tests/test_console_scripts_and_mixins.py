"""Launch lines that start a console script of pyproject.toml's [project.scripts] (`torchrun --no-python
tabrec-train`, after `pip install -e .`), and trainers joined from sibling mixins of other modules."""
from __future__ import annotations

PYPROJECT = '[project]\nname = "tabrec"\nversion = "0.1"\n\n[project.scripts]\ntabrec-train = "tabrec.cli:main"\n'
CLI = ("from tabrec.trainer import Trainer\n\n\ndef main():\n    Trainer().fit()\n\n\n"
       "if __name__ == '__main__':\n    main()\n")
TRAINER = "from .data import DataMixin\nfrom .loop import LoopMixin\n\n\nclass Trainer(BASES):\n    pass\n"
DATA = ("import torch\nfrom torch.utils.data import DataLoader, DistributedSampler\n\n\nclass DataMixin:\n"
        "    def setup_data(self):\n        ds = torch.utils.data.TensorDataset(torch.randn(64, 3))\n"
        "        self.train_loader = DataLoader(ds, sampler=DistributedSampler(ds, shuffle=True))\n")
LOOP = ("import torch.distributed as dist\n\n\nclass LoopMixin:\n    def fit(self):\n        dist.init_process_group('nccl')\n"
        "        self.setup_data()\n        for epoch in range(10):\n            for batch in self.train_loader:\n"
        "                pass\n")


def files(bases="DataMixin, LoopMixin", script="tabrec-train"):
    return {"pyproject.toml": PYPROJECT, "src/tabrec/__init__.py": "", "src/tabrec/cli.py": CLI,
            "src/tabrec/trainer/__init__.py": TRAINER.replace("BASES", bases),
            "src/tabrec/trainer/data.py": DATA, "src/tabrec/trainer/loop.py": LOOP,
            "Makefile": f"train:\n\ttorchrun --standalone --nproc_per_node=8 --no-python {script}\n"}


def test_a_console_script_launch_links_to_its_module_and_sibling_mixins_meet_in_the_class_that_joins_them(project):
    project.write(files())
    found = [(f.code, f.path, f.span.start.row) for f in project.check().findings]
    assert ("DSL302", "src/tabrec/trainer/loop.py", 8) in found


def test_an_unknown_console_script_stays_unlinked(project):
    project.write(files(script="other-cli"))
    assert "DSL302" not in project.codes()
