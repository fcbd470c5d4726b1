"""The command-line contract: exit codes, selection, settings, suppression, output formats."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from dslint.model import Applicability
from dslint.rules.registry import RULES, Report, python_rule

LOADS = """import torch
import torch.distributed as dist
dist.init_process_group("nccl")
a = torch.load("a.pt")
b = torch.load("b.pt")  # noqa: DSL102
c = torch.load("c.pt")  # noqa
torch.cuda.set_device(0)
"""


def run_cli(root, *args, check=False):
    proc = subprocess.run([sys.executable, "-m", "dslint", *args], cwd=root, capture_output=True, text=True, timeout=120)
    return proc


def as_json(proc):
    return json.loads(proc.stdout)


def test_exit_codes(project):
    project.write({"clean.py": "import torch\nprint(torch.ones(1))\n"})
    assert run_cli(project.root, "check", "--no-cache").returncode == 0
    project.write({"train.py": LOADS})
    assert run_cli(project.root, "check", "--no-cache").returncode == 1
    assert run_cli(project.root, "check", "--no-cache", "--exit-zero").returncode == 0
    assert run_cli(project.root, "check", "--output-format", "xml").returncode == 2
    assert run_cli(project.root, "check", "--select", "E501").returncode == 2


def test_noqa_with_code_silences_only_that_line_and_bare_noqa_does_not(project):
    project.write({"train.py": LOADS})
    rows = sorted((f["location"]["row"], f["code"]) for f in as_json(run_cli(project.root, "check", "--no-cache", "-o", "json")))
    assert rows == [(4, "DSL102"), (6, "DSL102"), (7, "DSL101")]


def test_file_level_noqa(project):
    project.write({"train.py": "# dslint: noqa\n" + LOADS})
    assert as_json(run_cli(project.root, "check", "--no-cache", "-o", "json")) == []


def test_select_ignore_and_prefixes(project):
    project.write({"train.py": LOADS})
    codes = lambda *a: sorted({f["code"] for f in as_json(run_cli(project.root, "check", "--no-cache", "-o", "json", *a))})
    assert codes("--select", "DSL1") == ["DSL101", "DSL102"]
    assert codes("--select", "DSL102") == ["DSL102"]
    assert codes("--ignore", "DSL102") == ["DSL101"]
    assert codes("--select", "DSL3", "--extend-select", "DSL101") == ["DSL101"]
    assert codes("--select", "DSL1", "--ignore", "DSL10") == []
    assert codes("--select", "DSL101,DSL102") == ["DSL101", "DSL102"]


def test_pyproject_settings_and_per_file_ignores(project):
    project.write({
        "pyproject.toml": '[tool.dslint]\nignore = ["DSL101"]\nper-file-ignores = { "legacy/*.py" = ["DSL102"] }\n',
        "train.py": LOADS,
        "legacy/old.py": LOADS,
    })
    found = as_json(run_cli(project.root, "check", "--no-cache", "-o", "json"))
    assert sorted({(f["filename"], f["code"]) for f in found}) == [("train.py", "DSL102")]


def test_unknown_settings_key_is_a_usage_error_naming_the_file(project):
    project.write({"pyproject.toml": "[tool.dslint]\nselcet = ['DSL1']\n", "train.py": LOADS})
    proc = run_cli(project.root, "check", "--no-cache")
    assert proc.returncode == 2
    assert "pyproject.toml" in proc.stderr and "unknown key 'selcet'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_nearest_pyproject_with_the_table_wins(project):
    project.write({
        "pyproject.toml": '[tool.dslint]\nselect = ["DSL3"]\n',
        "sub/pyproject.toml": "[project]\nname = 'x'\n",  # no [tool.dslint]: skipped
        "sub/train.py": LOADS,
    })
    proc = run_cli(project.root / "sub", "check", "--no-cache", "-o", "json", ".")
    assert as_json(proc) == []


def test_json_output_mirrors_ruff(project):
    project.write({"train.py": LOADS})
    found = as_json(run_cli(project.root, "check", "--no-cache", "-o", "json"))
    first = found[0]
    assert set(first) >= {"code", "message", "filename", "location", "end_location", "fix", "url", "severity"}
    assert first["filename"] == "train.py"
    assert first["location"] == {"row": 4, "column": 5}
    assert first["end_location"] == {"row": 4, "column": 23}
    assert first["fix"]["applicability"] == "safe"
    assert first["fix"]["edits"] == [{"content": ', map_location="cpu"', "location": {"row": 4, "column": 22},
                                      "end_location": {"row": 4, "column": 22}}]
    assert first["url"].endswith("rules/DSL102.md")


def test_relative_paths_stay_relative(project):
    project.write({"pkg/train.py": LOADS})
    found = as_json(run_cli(project.root, "check", "--no-cache", "-o", "json", "pkg"))
    assert {f["filename"] for f in found} == {os.path.join("pkg", "train.py")}


def test_github_and_concise_formats(project):
    project.write({"train.py": LOADS})
    github = run_cli(project.root, "check", "--no-cache", "-o", "github").stdout.splitlines()
    assert github[0].startswith("::warning title=dslint (DSL102),file=train.py,line=4,col=5,endLine=4,endColumn=23::")
    concise = run_cli(project.root, "check", "--no-cache", "-o", "concise").stdout.splitlines()
    assert concise[0].startswith("train.py:4:5: DSL102 [*] torch.load without map_location")


def test_full_format_shows_the_frame_and_the_fix(project):
    project.write({"train.py": LOADS})
    out = run_cli(project.root, "check", "--no-cache").stdout
    assert "4 | a = torch.load(\"a.pt\")" in out
    assert "    ^^^^^^^^^^^^^^^^^^" in out
    assert 'help: Add map_location="cpu" [fix]' in out
    assert "\033[" not in out  # no colour when not on a tty


def test_rules_and_explain(project):
    rules = as_json(run_cli(project.root, "rules", "-o", "json"))
    codes = {r["code"]: r for r in rules}
    assert codes["DSL102"]["fix"] == "safe" and codes["DSL102"]["family"] == "device-placement"
    text = run_cli(project.root, "explain", "dsl102").stdout
    assert text.startswith("# DSL102: torch-load-without-map-location")
    unknown = run_cli(project.root, "explain", "DSL1O2")
    assert unknown.returncode == 2 and "did you mean DSL102" in unknown.stderr


def test_warm_cache_gives_the_same_findings_and_sees_edits(project):
    project.write({"train.py": LOADS})
    cold = as_json(run_cli(project.root, "check", "-o", "json"))
    assert (project.root / ".dslint_cache" / "results.sqlite3").is_file()
    warm = as_json(run_cli(project.root, "check", "-o", "json"))
    assert warm == cold
    project.write({"train.py": LOADS.replace('torch.load("a.pt")', 'torch.load("a.pt", map_location="cpu")')})
    edited = as_json(run_cli(project.root, "check", "-o", "json"))
    assert len(edited) == len(cold) - 1


# -- fixing ------------------------------------------------------------------------------------

def test_fix_keeps_crlf_mode_and_bom_and_untouched_bytes(project):
    text = LOADS.replace("\n", "\r\n")
    data = b"\xef\xbb\xbf" + text.encode()
    project.write({"train.py": data, "other.py": "import torch\n"})
    path = project.root / "train.py"
    path.chmod(0o751)
    proc = run_cli(project.root, "fix", ".")
    assert proc.returncode == 1  # DSL101 remains (no automatic fix)
    after = path.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf")
    assert b'a = torch.load("a.pt", map_location="cpu")\r\n' in after
    assert after.replace(b', map_location="cpu"', b"") == data
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert not [p for p in project.root.rglob("*.tmp") if "dslint" in p.name]  # no temp file left


def test_fix_diff_writes_nothing(project):
    project.write({"train.py": LOADS})
    before = (project.root / "train.py").read_bytes()
    proc = run_cli(project.root, "fix", "--diff")
    assert proc.returncode == 1
    assert '+a = torch.load("a.pt", map_location="cpu")' in proc.stdout
    assert (project.root / "train.py").read_bytes() == before


def test_second_fix_changes_nothing(project):
    project.write({"train.py": LOADS})
    run_cli(project.root, "fix", "--unsafe-fixes")
    once = (project.root / "train.py").read_bytes()
    run_cli(project.root, "fix", "--unsafe-fixes")
    assert (project.root / "train.py").read_bytes() == once


def test_check_fix_flag_is_fix(project):
    project.write({"train.py": LOADS})
    run_cli(project.root, "check", "--fix")
    assert 'torch.load("a.pt", map_location="cpu")' in (project.root / "train.py").read_text()


@pytest.fixture
def breaking_rule():
    """A test-only rule whose fix would leave the file unparseable, and one that crashes."""
    from dslint.fixes import FIXERS, fixer, make_fix

    @fixer("test-break-file")
    def _break(text, params):
        from dslint.fixes import diff_to_edit

        return diff_to_edit(text, text.replace("import torch", "import torch(", 1))

    @python_rule("DSL098", "test-breaking-fix", fix=Applicability.SAFE)
    def _breaking(ctx):
        for site in ctx.facts.calls_to("torch.load"):
            yield Report(site.node, "test", fix=make_fix("test-break-file", "break it"))

    @python_rule("DSL099", "test-crashing-rule")
    def _crashing(ctx):
        raise ZeroDivisionError("boom")
        yield  # pragma: no cover

    yield
    RULES.pop("DSL098")
    RULES.pop("DSL099")
    FIXERS.pop("test-break-file")


def test_a_fix_that_breaks_the_file_is_dropped_and_reported(project, breaking_rule):
    project.write({"train.py": LOADS})
    outcome = project.fix(unsafe=True, select=["DSL098"])
    assert outcome.changed == {}
    assert outcome.dropped and "DSL098 fix dropped" in outcome.dropped[0]
    assert project.read("train.py") == LOADS


def test_a_crashing_rule_becomes_an_internal_error_and_loses_nothing(project, breaking_rule):
    project.write({"train.py": LOADS})
    result = project.check()
    codes = [f.code for f in result.findings]
    assert "DSL003" in codes and "DSL102" in codes
    crash = next(f for f in result.findings if f.code == "DSL003")
    assert "DSL099" in crash.message and "ZeroDivisionError" in crash.message
    assert result.internal_error


def test_sampler_fix_reuses_an_existing_import(project):
    project.write({"train.py": "import torch\nimport torch.distributed as dist\n"
                               "from torch.nn.parallel import DistributedDataParallel\n"
                               "from torch.utils.data import DataLoader, DistributedSampler, TensorDataset\n\n"
                               "dist.init_process_group('nccl')\nds = TensorDataset(torch.randn(8, 2))\n"
                               "loader = DataLoader(ds, batch_size=2, shuffle=True)\n"
                               "model = DistributedDataParallel(torch.nn.Linear(2, 1))\n"})
    project.fix(unsafe=True, select=["DSL301"])
    text = project.read("train.py")
    assert "loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds))" in text
    assert text.count("DistributedSampler") == 2  # the existing import serves; nothing added
