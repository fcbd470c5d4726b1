"""`dslint check` must never import the frameworks it lints: they are slow to import (torch alone
takes seconds) and may not even be installed where dslint runs (CI, pre-commit)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

HEAVY = ("torch", "deepspeed", "lightning", "pytorch_lightning", "transformers", "accelerate")
EDITOR = ("pygls", "lsprotocol", "cattrs")


def _imported_modules(stderr: str) -> set[str]:
    """Module names from `-X importtime` output (one line per module imported)."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_check_imports_no_framework(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import os
        import deepspeed
        import lightning as L
        import torch
        import torch.distributed as dist
        from accelerate import Accelerator
        from transformers import Trainer
        from torch.utils.data import DataLoader, DistributedSampler

        dist.init_process_group("nccl")
        model = torch.nn.Linear(2, 2).to("cuda:0")
        state = torch.load("ckpt.pt")
        loader = DataLoader(range(10), batch_size=2)
        engine, _, _, _ = deepspeed.initialize(model=model, config="ds.json")
        trainer = L.Trainer(devices=2, strategy="ddp")
        """))
    (tmp_path / "ds.json").write_text('{"train_micro_batch_size_per_gpu": 2, "zero_optimisation": {"stage": 2}}\n')
    (tmp_path / "run.sh").write_text("torchrun --nproc_per_node 2 train.py\n")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dslint", "check", "--no-cache", "-o", "json", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]  # findings were reported: the rules did run
    assert '"code"' in proc.stdout
    modules = _imported_modules(proc.stderr)
    assert "dslint.engine" in modules  # the importtime parsing itself works
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], f"dslint check imported {heavy}"
    # the language server's libraries are core dependencies, loaded only by `dslint lsp`
    editor = sorted(m for m in modules if m.split(".")[0] in EDITOR)
    assert editor == [], f"dslint check imported {editor}"


def test_lsp_help_imports_no_server_library():
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "dslint", "lsp", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Language Server" in proc.stdout, proc.stderr[-2000:]
    modules = _imported_modules(proc.stderr)
    assert "dslint.cli" in modules  # the importtime parsing itself works
    assert sorted(m for m in modules if m.split(".")[0] in EDITOR + HEAVY) == []


# What a check of plain Python files has no use for (issue 13, start-up): the launch layer, YAML,
# the DeepSpeed schema, .gitignore matching of named files, the probe's statistics.
NOT_FOR_PYTHON_ONLY = ("dslint.sources.launch.parse", "dslint.sources.launch.bash", "dslint.sources.launch.facts",
                       "dslint.sources.launch.model",
                       "dslint.sources.yaml_configs", "tree_sitter_bash", "yaml", "dslint.dsconfig_schema.validate",
                       "dslint.dsconfig_schema.effective", "pathspec", "statistics")


def test_python_only_check_imports_no_launch_or_config_layer(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import torch
        import torch.distributed as dist
        from torch.utils.data import DataLoader

        dist.init_process_group("nccl")
        model = torch.nn.Linear(2, 2).to("cuda:0")
        loader = DataLoader(range(10), batch_size=2)
        """))
    (tmp_path / "utils.py").write_text("def helper():\n    return 1\n")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dslint", "check", "--no-cache", "-o", "json", "train.py", "utils.py"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]  # findings: the Python rules and the project phase ran
    modules = _imported_modules(proc.stderr)
    assert "dslint.facts.link" in modules  # the setup rules did run (and the parsing works)
    assert sorted(m for m in NOT_FOR_PYTHON_ONLY if m in modules) == []
