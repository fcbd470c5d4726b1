"""Bad input never crashes a run: each file gets one clear reason, and the other files are checked."""
from __future__ import annotations

import json
import subprocess
import sys

BROKEN_DDP = """import torch
import torch.distributed as dist
dist.init_process_group("nccl")
state = torch.load("ckpt.pt")
"""


def run_cli(root, *args):
    return subprocess.run([sys.executable, "-m", "dslint", *args], cwd=root, capture_output=True, text=True, timeout=120)


def findings(root, *args):
    proc = run_cli(root, "check", "--no-cache", "--output-format", "json", *args)
    return proc, json.loads(proc.stdout or "[]")


def test_syntax_error_is_a_finding_with_position_and_others_still_checked(project):
    project.write({"bad.py": "import torch\ndef f(:\n    pass\n", "good.py": BROKEN_DDP})
    proc, found = findings(project.root)
    assert proc.returncode == 1
    by_file = {(f["filename"], f["code"]) for f in found}
    assert ("bad.py", "DSL001") in by_file
    assert ("good.py", "DSL102") in by_file
    syntax = next(f for f in found if f["code"] == "DSL001")
    assert syntax["location"]["row"] == 2
    assert "syntax error" in syntax["message"]


def test_invalid_deepspeed_json_reports_line_and_column(project):
    project.write({"ds_config.json": '{\n  "train_batch_size": 8,\n  "fp16": {"enabled": true\n}\n', "train.py": BROKEN_DDP})
    proc, found = findings(project.root)
    bad = [f for f in found if f["filename"] == "ds_config.json"]
    assert [f["code"] for f in bad] == ["DSL001"]
    assert bad[0]["location"]["row"] >= 3
    assert any(f["code"] == "DSL102" for f in found)


def test_unrelated_broken_json_is_not_our_business(project):
    project.write({"package.json": "{ not json", "train.py": BROKEN_DDP})
    _, found = findings(project.root)
    assert [f["filename"] for f in found] == ["train.py"]


def test_non_utf8_file_names_the_byte(project):
    project.write({"latin.py": "import torch\n# caf\xe9\n".encode("latin-1"), "train.py": BROKEN_DDP})
    proc, found = findings(project.root)
    bad = next(f for f in found if f["filename"] == "latin.py")
    assert bad["code"] == "DSL002"
    assert "not valid UTF-8 at line 2" in bad["message"] and "0xe9" in bad["message"]
    assert any(f["filename"] == "train.py" for f in found)


def test_binary_file_with_python_name(project):
    project.write({"blob.py": b"\x7fELF\x00\x00\x01torch", "train.py": BROKEN_DDP})
    _, found = findings(project.root)
    bad = next(f for f in found if f["filename"] == "blob.py")
    assert bad["code"] == "DSL002" and "binary" in bad["message"]


def test_huge_file_is_skipped_with_the_limit_named(project):
    big = "import torch\n" + "x = 1\n" * (50 * 1024 * 1024 // 6)
    project.write({"huge.py": big, "train.py": BROKEN_DDP})
    proc, found = findings(project.root)
    bad = next(f for f in found if f["filename"] == "huge.py")
    assert bad["code"] == "DSL002" and "too large" in bad["message"] and "max-file-size-mb" in bad["message"]
    assert proc.returncode == 1


def test_missing_path_is_an_error_but_the_rest_is_checked(project):
    project.write({"train.py": BROKEN_DDP})
    proc = run_cli(project.root, "check", "--no-cache", "--output-format", "json", "train.py", "nope.py")
    assert proc.returncode == 2
    assert "nope.py: no such file or directory" in proc.stderr
    assert [f["code"] for f in json.loads(proc.stdout)] == ["DSL102"]
    assert "Traceback" not in proc.stderr


def test_check_never_writes(project):
    project.write({"train.py": BROKEN_DDP})
    before = (project.root / "train.py").read_bytes()
    run_cli(project.root, "check", "--no-cache", ".")
    assert (project.root / "train.py").read_bytes() == before


def test_unreadable_file_is_reported(project, tmp_path):
    import os

    if os.geteuid() == 0:
        import pytest

        pytest.skip("root can read a file without read permission")
    project.write({"secret.py": BROKEN_DDP})
    (project.root / "secret.py").chmod(0)
    _, found = findings(project.root)
    assert found[0]["code"] == "DSL002" and "cannot read" in found[0]["message"]
