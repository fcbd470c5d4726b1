"""Which files a check reads: .gitignore, exclude settings, file kinds, the prefilter; and that
the parallel path finds exactly what the serial path finds."""
from __future__ import annotations

from pathlib import Path

from dslint import engine
from dslint.settings import Settings
from dslint.sources.discover import discover

DDP = 'import torch\nimport torch.distributed as dist\ndist.init_process_group("nccl")\nx = torch.load("{name}.pt")\n'


def names(root: Path, settings: Settings = Settings()) -> list[str]:
    files, _ = discover([str(root)], settings, root)
    return sorted(Path(f.abspath).relative_to(root).as_posix() for f in files)


def test_gitignore_default_excludes_and_settings_exclude(tmp_path):
    (tmp_path / ".gitignore").write_text("outputs/\n*.generated.py\n")
    for name in ["train.py", "outputs/run1/train.py", "x.generated.py", ".venv/lib/torch.py",
                 "third_party/lib.py", "configs/ds.json", "launch.sh", "jobs/run.sbatch", "Makefile", "notes.txt",
                 "sub/.gitignore", "sub/keep.py", "sub/skip.py"]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("skip.py\n" if name == "sub/.gitignore" else "import torch\n")
    found = names(tmp_path, Settings.model_validate({"exclude": ["third_party/"]}))
    assert found == ["Makefile", "configs/ds.json", "jobs/run.sbatch", "launch.sh", "sub/keep.py", "train.py"]
    assert "outputs/run1/train.py" in names(tmp_path, Settings.model_validate({"respect-gitignore": False}))


def test_prefilter_skips_files_without_a_training_framework(project):
    project.write({"util.py": "def f(:\n", "train.py": "import torch\n"})
    result = project.check()
    assert result.files == 1  # util.py mentions no framework: not even parsed
    assert result.findings == []


def test_parallel_run_equals_serial_run(tmp_path):
    for i in range(40):
        (tmp_path / f"train_{i:02d}.py").write_text(DDP.format(name=i))
    settings = Settings()
    serial = engine.check([str(tmp_path)], settings, root=tmp_path, use_cache=False, jobs=1)
    parallel = engine.check([str(tmp_path)], settings, root=tmp_path, use_cache=False, jobs=2)
    key = lambda r: [(f.path, f.code, f.span, f.message) for f in r.findings]
    assert len(serial.findings) == 40
    assert key(serial) == key(parallel)


def test_parallel_run_with_launch_and_config_files_equals_serial_run(tmp_path):
    # The parent checks launch and config files itself while the workers take the scripts.
    for i in range(30):
        (tmp_path / f"train_{i:02d}.py").write_text(
            "import deepspeed\nengine, *_ = deepspeed.initialize(model=m, config='ds.json')\n")
        (tmp_path / f"run_{i:02d}.sh").write_text(f"deepspeed --num_gpus 2 train_{i:02d}.py --deepspeed ds.json\n")
    (tmp_path / "ds.json").write_text('{"train_batch_size": "auto", "zero_optimization": {"stage": 3}, '
                                      '"fp16": {"enabled": true}, "bf16": {"enabled": true}}\n')
    settings = Settings()
    serial = engine.check([str(tmp_path)], settings, root=tmp_path, use_cache=False, jobs=1)
    parallel = engine.check([str(tmp_path)], settings, root=tmp_path, use_cache=False, jobs=2)
    key = lambda r: [(f.path, f.code, f.span, f.message) for f in r.findings]
    assert {Path(f.path).name for f in serial.findings} >= {"ds.json"}  # config and setup findings are part of it
    assert serial.files == parallel.files == 61
    assert key(serial) == key(parallel)
    assert serial.texts == parallel.texts


def test_a_gitignore_never_applies_to_sibling_folders(tmp_path):
    for name in ["a/.gitignore", "a/x.py", "b/x.py", "b/y.py"]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x.py\n" if name.endswith(".gitignore") else "import torch\n")
    assert names(tmp_path) == ["b/x.py", "b/y.py"]


def test_a_repository_root_drops_the_gitignores_above_it(tmp_path):
    (tmp_path / ".gitignore").write_text("*.py\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "train.py").write_text("import torch\n")
    assert names(repo) == ["train.py"]


def test_negated_gitignore_patterns_are_honoured(tmp_path):
    (tmp_path / ".gitignore").write_text("*.py\n!keep.py\n")
    for name in ["drop.py", "keep.py"]:
        (tmp_path / name).write_text("import torch\n")
    assert names(tmp_path) == ["keep.py"]
