"""`dslint check --add-noqa`, through the real console script: every finding's line gets its code,
existing lists are extended, JSON configs are skipped and counted, a second run changes nothing,
and the check afterwards reports nothing that a comment can silence (no DSL004 either)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from dslint.add_noqa import _comment_row, _shell_rows_in_text
from dslint.textpos import LineIndex

TRAIN = textwrap.dedent("""\
    import os
    import torch
    import torch.distributed as dist

    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(0)  # noqa: E501
    state = torch.load("ckpt.pt")   
    model = torch.nn.Linear(2, 2)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])  # keep: reviewed
    other = torch.load("b.pt") if os.environ.get("X") else \\
        None
    """)
TRAIN_AFTER = textwrap.dedent("""\
    import os
    import torch
    import torch.distributed as dist

    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(0)  # noqa: E501, DSL101
    state = torch.load("ckpt.pt")  # noqa: DSL102
    model = torch.nn.Linear(2, 2)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])  # keep: reviewed  # noqa: DSL101
    other = torch.load("b.pt") if os.environ.get("X") else \\
        None
    """)
# a torchrun line (DSL202) and a DeepSpeed config (DSL610) that belong together
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "zero_offload_torchrun"


def dslint(root, *args):
    return subprocess.run([sys.executable, "-m", "dslint", *args], cwd=root, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1"})


def codes(root, *args):
    proc = dslint(root, "check", "--no-cache", "-o", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return sorted((f["filename"].rsplit("/", 1)[-1], f["location"]["row"], f["code"]) for f in json.loads(proc.stdout))


def test_add_noqa_silences_every_line_and_is_idempotent(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path, dirs_exist_ok=True)  # (its launch line names paths from the cwd)
    (tmp_path / "ddp.py").write_text(TRAIN)
    launch = (tmp_path / "train.sh").read_text()
    config = (tmp_path / "ds_zero2_offload.json").read_text()
    before = codes(tmp_path)
    assert ("ddp.py", 6, "DSL101") in before and ("ddp.py", 7, "DSL102") in before
    assert ("train.sh", 3, "DSL202") in before
    json_findings = [c for c in before if c[0].endswith(".json")]
    assert json_findings  # DSL610: the config finding that cannot take a comment

    proc = dslint(tmp_path, "check", "--add-noqa", ".")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ddp.py").read_text() == TRAIN_AFTER
    lines = launch.splitlines(True)
    lines[2] = lines[2].rstrip("\n") + "  # noqa: DSL202" + lines[2][len(lines[2].rstrip("\n")):]
    assert (tmp_path / "train.sh").read_text() == "".join(lines)
    assert (tmp_path / "ds_zero2_offload.json").read_text() == config
    assert "Added 4 noqa codes to 2 files." in proc.stderr
    assert f"Skipped {len(json_findings)} finding" in proc.stderr and "JSON" in proc.stderr
    # the torch.load after a backslash line: no line of it can carry a comment, said, not guessed
    assert "ddp.py:10: DSL102: no line of the finding can take a comment" in proc.stderr

    after = codes(tmp_path)
    assert [c for c in after if not c[0].endswith(".json")] == [("ddp.py", 10, "DSL102")]
    assert [c for c in after if c[0].endswith(".json")] == json_findings
    assert "DSL004" not in {c[2] for c in after}

    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    again = dslint(tmp_path, "check", "--add-noqa", ".")
    assert again.returncode == 0, again.stderr
    assert "Added 0 noqa codes to 0 files." in again.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot


def test_add_noqa_keeps_crlf_bom_and_mode(tmp_path):
    text = "\ufeffimport torch\r\nimport torch.distributed as dist\r\ndist.init_process_group('nccl')\r\ntorch.cuda.set_device(0)\r\n"
    path = tmp_path / "train.py"
    path.write_bytes(text.encode("utf-8"))
    path.chmod(0o750)
    proc = dslint(tmp_path, "check", "--add-noqa", "train.py")
    assert proc.returncode == 0, proc.stderr
    assert path.read_bytes() == text.replace("set_device(0)\r\n", "set_device(0)  # noqa: DSL101\r\n").encode("utf-8")
    assert path.stat().st_mode & 0o777 == 0o750
    assert codes(tmp_path) == []


def test_add_noqa_with_fix_or_stdin_is_a_usage_error(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    for args in (("fix", "--add-noqa", "."), ("check", "--fix", "--add-noqa", "."),
                 ("check", "--add-noqa", "-", "--stdin-filename", "t.py")):
        proc = dslint(tmp_path, *args)
        assert proc.returncode == 2, args
        assert proc.stderr.strip().splitlines() == ["dslint: error: --add-noqa cannot be combined with fix, --fix, "
                                                    "--diff or stdin (-)"]
    assert (tmp_path / "train.py").read_text() == TRAIN


def test_add_noqa_respects_selection(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    proc = dslint(tmp_path, "check", "--add-noqa", "--select", "DSL102", ".")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "train.py").read_text()
    assert 'torch.load("ckpt.pt")  # noqa: DSL102\n' in text
    assert "DSL101" not in text


def test_shell_rows_inside_heredocs_and_strings_take_no_comment():
    script = textwrap.dedent("""\
        cat > job.sh <<EOF
        torchrun train.py
        EOF
        python -c 'import os
        print(1)'
        torchrun --nproc_per_node 2 train.py
        """)
    blocked = _shell_rows_in_text(script)
    assert {2, 3, 4} <= blocked  # the heredoc's body and end, the first line of the open string
    assert not {1, 5, 6} & blocked


def test_unused_noqa_codes_are_left_to_fix(tmp_path):
    text = ("import torch\nimport torch.distributed as dist\ndist.init_process_group('nccl')\n"
            "torch.cuda.set_device(0)  # noqa: DSL999\n")
    (tmp_path / "train.py").write_text(text)
    proc = dslint(tmp_path, "check", "--add-noqa", ".")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "train.py").read_text() == text.replace("DSL999", "DSL999, DSL101")
    assert "Left 1 unused noqa code finding (DSL004): `dslint fix` removes them." in proc.stderr
    assert codes(tmp_path) == [("train.py", 4, "DSL004")]
    assert dslint(tmp_path, "fix", "-q", ".").returncode == 0
    assert (tmp_path / "train.py").read_text() == text.replace("DSL999", "DSL101")
    assert codes(tmp_path) == []


def test_scheduler_directives_and_strings_with_noqa_take_no_comment():
    text = "#!/bin/bash\n#SBATCH --ntasks-per-node=8\nsrun python train.py\n"
    lines = LineIndex(text)
    assert _comment_row(lines, set(), (2, 2), "launch") is None  # sbatch parses that line
    assert _comment_row(lines, set(), (2, 3), "launch") == 3
    # the engine reads a line's first `noqa:` list, here the one in the string: a comment after it would not count
    python = LineIndex('x = torch.load("a # noqa: E501")\n')
    assert _comment_row(python, set(), (1, 1), "python") is None
