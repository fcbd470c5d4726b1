#!/usr/bin/env python3
"""Speed and memory of whole `dslint check` runs, against the `ast` floor, TorchFix and Fixit.

Not a test: a script that prints a markdown table. Every row is a separate process, timed from
outside (wall clock, and CPU and peak memory from `os.wait4`, which include the fork pool's
workers), the median of several runs. The floor, the other tools and (with `--baseline REV`)
an older dslint are measured in the same run, on the same files, so the ratios compare like
with like on a machine whose load may drift.

    python bench/check_speed.py /tmp/dse                    # a real corpus
    python bench/check_speed.py --generate 300              # a generated corpus
    python bench/check_speed.py /tmp/dse --torchfix /tmp/bench-venv/bin/torchfix \\
        --fixit /tmp/bench-venv/bin/fixit --baseline HEAD~3

Rows: the `ast.parse` floor (one process, start-up included), dslint cold (`--no-cache`) on
`--jobs` workers and on one, warm (a second run over the same cache), a 10-file
pre-commit-sized run (start-up included), the bare CLI start-up, `-o json`, `-o sarif` and
`fix --diff` cold each against `-o concise` cold (interleaved runs; `--only-outputs` for just
those), and TorchFix/Fixit when their paths are given. A last check runs `python -X importtime -m dslint check` and lists any heavy
framework module (torch, deepspeed, lightning, transformers, accelerate) that got imported.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

HEAVY_MODULES = ("torch", "deepspeed", "lightning", "pytorch_lightning", "transformers", "accelerate")
FRAMEWORK_MARKERS = (b"torch", b"deepspeed", b"lightning", b"accelerate", b"transformers")
SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", ".dslint_cache", "build", "dist"}

# Targets from issue 2 (anchors measured on DeepSpeedExamples, 390 files, 101,619 lines).
TARGETS = {
    "cold": "wall < 1.5 s on 2 cores; CPU <= 2.5x floor",
    "warm": "wall < 0.3 s",
    "precommit": "wall < 0.5 s; CPU <= 0.12 s (issue 13)",
    "json": "CPU <= 1.3x `-o concise` cold (issue 13)",
    "sarif": "CPU <= 1.3x `-o concise` cold (issue 13)",
    "fix-diff": "CPU <= 1.5x `-o concise` cold (issue 13)",
}

FLOOR_CODE = """
import ast, sys
for path in sys.argv[1:]:
    with open(path, "rb") as handle:
        try:
            ast.parse(handle.read(), path)
        except (SyntaxError, ValueError):
            pass
"""


@dataclass
class Sample:
    wall: float
    cpu: float
    peak_kib: int
    rc: int


@dataclass
class Row:
    name: str
    command: str
    files: int
    lines: int
    samples: list[Sample] = field(default_factory=list)
    note: str = ""
    target: str = ""

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def peak_mib(self) -> float:
        return max(s.peak_kib for s in self.samples) / 1024


# -- measuring ------------------------------------------------------------------------------------

def measure(argv: list[str], *, cwd: str, env: Optional[dict] = None, timeout: Optional[float] = None,
            ok_codes: tuple = (0, 1)) -> Sample:
    """Run one command to completion; wall time, CPU (user+sys, children included), peak RSS."""
    errors = tempfile.TemporaryFile()  # a file, not a pipe: a chatty tool must not block on it
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=errors)
    deadline = None if timeout is None else start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if deadline is not None and time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.002)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    errors.seek(0)
    err = errors.read().decode("utf-8", "replace")
    errors.close()
    if ok_codes and proc.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(argv[:4])}... exited {proc.returncode}: {err.strip()[-400:]}")
    return Sample(wall=wall, cpu=usage.ru_utime + usage.ru_stime, peak_kib=usage.ru_maxrss, rc=proc.returncode)


def repeat(row: Row, argv: list[str], runs: int, *, cwd: str, env=None, before=None, timeout=None,
           ok_codes: tuple = (0, 1)) -> Row:
    """`runs` samples into `row`; a failing command leaves a note instead of ending the benchmark."""
    for _ in range(runs):
        if before is not None:
            before()
        try:
            row.samples.append(measure(argv, cwd=cwd, env=env, timeout=timeout, ok_codes=ok_codes))
        except RuntimeError as error:
            row.note = f"failed: {error}".replace("|", "/").replace("\n", " ")[:300]
            print(f"warning: {row.name}: {error}", file=sys.stderr)
            break
        print(f"  {row.name}: wall {row.samples[-1].wall:.3f} s, CPU {row.samples[-1].cpu:.3f} s, "
              f"exit {row.samples[-1].rc}", file=sys.stderr, flush=True)
    return row


def output_rows(label: str, check: list[str], dslint: list[str], paths: list[str], files: int, lines: int, runs: int, *,
                cwd: str, env: dict, jobs: int) -> list[Row]:
    """`-o json`, `-o sarif` and `fix --diff`, cold, each against `-o concise` cold: run after run,
    interleaved, so that a drifting load hits the pair alike. The ratios are of median CPU."""
    cold = ["--no-cache", "--jobs", str(jobs)]
    base = [a for a in check if a not in ("-o", "concise")]
    commands = {
        "concise": check + cold + paths,
        "json": base + ["-o", "json"] + cold + paths,
        "sarif": base + ["-o", "sarif"] + cold + paths,
        "fix-diff": dslint + ["fix", "--diff", "-q", "--no-progress", "--no-cache", *paths],
    }
    names = {"concise": f"{label}`-o concise` cold (the reference of the next three)", "json": f"{label}`-o json` cold",
             "sarif": f"{label}`-o sarif` cold", "fix-diff": f"{label}`fix --diff` cold"}
    rows = {kind: Row(names[kind], " ".join(argv[2:]), files, lines, target=TARGETS.get(kind, "")) for kind, argv in commands.items()}
    for _ in range(runs):
        for kind, argv in commands.items():
            repeat(rows[kind], argv, 1, cwd=cwd, env=env)
    reference = rows["concise"]
    for kind in ("json", "sarif", "fix-diff"):
        row = rows[kind]
        if row.samples and reference.samples:
            row.note = (f"{row.cpu / reference.cpu:.2f}x `-o concise` CPU, {row.wall / reference.wall:.2f}x wall"
                        + (f"; {row.note}" if row.note else ""))
    return list(rows.values())


# -- corpus ---------------------------------------------------------------------------------------

def python_files(roots: list[Path]) -> list[Path]:
    found = []
    for root in roots:
        if root.is_file():
            found.append(root)
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            found.extend(Path(folder) / f for f in sorted(files) if f.endswith(".py"))
    return found


def count_lines(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        with open(path, "rb") as handle:
            total += handle.read().count(b"\n")
    return total


def precommit_sample(files: list[Path], n: int = 10) -> list[Path]:
    """`n` training-looking files spread over the corpus: what a typical commit touches."""
    candidates = [p for p in files if any(m in p.read_bytes() for m in FRAMEWORK_MARKERS)] or files
    if len(candidates) <= n:
        return candidates
    step = len(candidates) / n
    return [candidates[int(i * step)] for i in range(n)]


def generate_corpus(folder: Path, n: int) -> None:
    """`n` training setups: scripts (DDP, DeepSpeed, Lightning, plain utilities), configs, launchers."""
    for i in range(n):
        project = folder / f"project_{i // 20:03d}"
        project.mkdir(parents=True, exist_ok=True)
        kind = i % 4
        if kind == 0:
            (project / f"train_ddp_{i}.py").write_text(_DDP_SCRIPT.format(i=i))
            (project / f"launch_ddp_{i}.sh").write_text(
                f"#!/bin/bash\nset -e\ntorchrun --nnodes 1 --nproc_per_node 8 train_ddp_{i}.py --epochs {i % 7 + 1}\n")
        elif kind == 1:
            (project / f"train_ds_{i}.py").write_text(_DS_SCRIPT.format(i=i))
            (project / f"ds_config_{i}.json").write_text(_DS_CONFIG.format(micro=2 + i % 6, stage=i % 4, bucket=i * 1000 + 5e8))
            (project / f"run_ds_{i}.sh").write_text(
                f"#!/bin/bash\ndeepspeed --num_gpus 8 train_ds_{i}.py --deepspeed --deepspeed_config ds_config_{i}.json\n")
        elif kind == 2:
            (project / f"train_pl_{i}.py").write_text(_PL_SCRIPT.format(i=i))
        else:
            (project / f"utils_{i}.py").write_text(_UTILS.format(i=i))


_DDP_SCRIPT = textwrap.dedent('''\
    """DDP training script {i}."""
    import argparse
    import os

    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


    class Net{i}(nn.Module):
        def __init__(self, width=128):
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(32, width), nn.ReLU(), nn.Linear(width, 10))

        def forward(self, x):
            return self.layers(x)


    def parse_args():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default={i} % 5 + 1)
        parser.add_argument("--lr", type=float, default=1e-3)
        parser.add_argument("--resume", type=str, default="")
        return parser.parse_args()


    def evaluate(model, loader, device):
        model.eval()
        correct = total = 0
        with torch.no_grad():
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                pred = model(x).argmax(dim=1)
                correct += (pred == y).sum().item()
                total += y.numel()
        return correct / max(total, 1)


    def main():
        args = parse_args()
        dist.init_process_group("nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
        data = TensorDataset(torch.randn(4096, 32), torch.randint(0, 10, (4096,)))
        sampler = DistributedSampler(data)
        loader = DataLoader(data, batch_size=64, sampler=sampler, num_workers=4, pin_memory=True)
        val_loader = DataLoader(data, batch_size=256)
        model = Net{i}().to(device)
        if args.resume:
            model.load_state_dict(torch.load(args.resume))
        model = DDP(model, device_ids=[local_rank])
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        loss_fn = nn.CrossEntropyLoss()
        for epoch in range(args.epochs):
            model.train()
            for step, (x, y) in enumerate(loader):
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
                loss = loss_fn(model(x), y)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                if step % 100 == 0 and dist.get_rank() == 0:
                    print(f"epoch {{epoch}} step {{step}} loss {{loss.item():.4f}}")
            accuracy = evaluate(model, val_loader, device)
            if dist.get_rank() == 0:
                torch.save(model.module.state_dict(), f"checkpoint_{{epoch}}.pt")
                print("accuracy", accuracy)
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    ''')

_DS_SCRIPT = textwrap.dedent('''\
    """DeepSpeed training script {i}."""
    import argparse

    import deepspeed
    import torch
    import torch.nn as nn
    from torch.utils.data import Dataset


    class RandomData(Dataset):
        def __init__(self, n=2048):
            self.x = torch.randn(n, 64)
            self.y = torch.randint(0, 4, (n,))

        def __len__(self):
            return len(self.x)

        def __getitem__(self, index):
            return self.x[index], self.y[index]


    def build_model(hidden=256, layers={i} % 4 + 2):
        blocks = [nn.Linear(64, hidden), nn.GELU()]
        for _ in range(layers):
            blocks += [nn.Linear(hidden, hidden), nn.GELU()]
        blocks.append(nn.Linear(hidden, 4))
        return nn.Sequential(*blocks)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--local_rank", type=int, default=-1)
        parser = deepspeed.add_config_arguments(parser)
        args = parser.parse_args()
        deepspeed.init_distributed()
        model = build_model()
        engine, optimizer, loader, _ = deepspeed.initialize(
            args=args, model=model, model_parameters=model.parameters(), training_data=RandomData())
        for epoch in range(3):
            for step, (x, y) in enumerate(loader):
                x = x.to(engine.local_rank)
                y = y.to(engine.local_rank)
                loss = nn.functional.cross_entropy(engine(x), y)
                engine.backward(loss)
                engine.step()
                if step % 50 == 0 and engine.global_rank == 0:
                    print(epoch, step, loss.item())
            engine.save_checkpoint("checkpoints", tag=f"epoch{{epoch}}")


    if __name__ == "__main__":
        main()
    ''')

_DS_CONFIG = textwrap.dedent('''\
    {{
      "train_micro_batch_size_per_gpu": {micro},
      "gradient_accumulation_steps": 4,
      "gradient_clipping": 1.0,
      "optimizer": {{"type": "AdamW", "params": {{"lr": 3e-4, "weight_decay": 0.01}}}},
      "scheduler": {{"type": "WarmupLR", "params": {{"warmup_min_lr": 0, "warmup_max_lr": 3e-4, "warmup_num_steps": 100}}}},
      "bf16": {{"enabled": true}},
      "zero_optimization": {{
        "stage": {stage},
        "overlap_comm": true,
        "contiguous_gradients": true,
        "reduce_bucket_size": {bucket:.0f}
      }},
      "steps_per_print": 100,
      "wall_clock_breakdown": false
    }}
    ''')

_PL_SCRIPT = textwrap.dedent('''\
    """Lightning training script {i}."""
    import lightning as L
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset


    class LitModel{i}(L.LightningModule):
        def __init__(self, lr=1e-3):
            super().__init__()
            self.save_hyperparameters()
            self.net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 2))

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = nn.functional.cross_entropy(self.net(x), y)
            self.log("train_loss", loss, sync_dist=True)
            return loss

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)


    def main():
        data = TensorDataset(torch.randn(1024, 16), torch.randint(0, 2, (1024,)))
        loader = DataLoader(data, batch_size=32, num_workers=2)
        trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=3)
        trainer.fit(LitModel{i}(), loader)


    if __name__ == "__main__":
        main()
    ''')

_UTILS = textwrap.dedent('''\
    """Helpers {i}: plain Python, no framework import (the prefilter skips it)."""
    import json
    import math
    import os
    from collections import defaultdict


    def read_jsonl(path):
        rows = []
        with open(path) as handle:
            for line in handle:
                line = line.strip()
                if line:
                    rows.append(json.loads(line))
        return rows


    def cosine_schedule(step, total, base=1.0, floor=0.0):
        progress = min(step / max(total, 1), 1.0)
        return floor + (base - floor) * 0.5 * (1 + math.cos(math.pi * progress))


    def group_by(rows, key):
        groups = defaultdict(list)
        for row in rows:
            groups[row[key]].append(row)
        return dict(groups)


    def output_dir(name="run_{i}"):
        path = os.path.join(os.environ.get("OUT", "outputs"), name)
        os.makedirs(path, exist_ok=True)
        return path
    ''')


# -- checks ---------------------------------------------------------------------------------------

def heavy_imports(dslint: list[str], paths: list[str], cwd: str, env: dict) -> list[str]:
    """Framework modules that `dslint check` imports (from `-X importtime`, which lists every import)."""
    argv = dslint[:1] + ["-X", "importtime"] + dslint[1:] + ["check", "--no-cache", "-q", "-o", "concise", *paths]
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name.split(".")[0] in HEAVY_MODULES:
                seen.add(name.split(".")[0])
    return sorted(seen)


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{cores} cores ({model}), Python {platform.python_version()}, load average {load:.2f} at start"


def baseline_tree(rev: str, repo: Path, folder: Path) -> Path:
    """`src/` of an older dslint (git archive, no work-tree changes), to run with PYTHONPATH."""
    archive = subprocess.run(["git", "-C", str(repo), "archive", rev, "src"], check=True, capture_output=True).stdout
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    # compiled once here: with PYTHONDONTWRITEBYTECODE every baseline run would compile it again
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "src")], check=True)
    return folder / "src"


# -- report ---------------------------------------------------------------------------------------

def table(rows: list[Row], floor: Optional[Row]) -> str:
    out = ["| Run | files | lines | wall s (median) | CPU s (median) | files/s (wall) | lines/s (wall) "
           "| peak MiB | CPU / ast floor | runs | target |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        if not row.samples:
            out.append(f"| {row.name} | {row.files} | {row.lines:,} | - | - | - | - | - | - | 0 | {row.note} |")
            continue
        ratio = f"{row.cpu / floor.cpu:.2f}x" if floor and floor.samples and floor.cpu > 0 else "-"
        target = "; ".join(part for part in (row.target, row.note) if part)
        out.append(f"| {row.name} | {row.files} | {row.lines:,} | {row.wall:.3f} | {row.cpu:.3f} | "
                   f"{row.files / row.wall:,.0f} | {row.lines / row.wall:,.0f} | {row.peak_mib:.1f} | {ratio} | "
                   f"{len(row.samples)} | {target} |")
    return "\n".join(out)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="*", help="Files or folders to check (default: a generated corpus)")
    parser.add_argument("--generate", type=int, default=0, metavar="N",
                        help="Also (or only) check N generated training scripts + configs + launchers")
    parser.add_argument("--runs", type=int, default=5, help="Runs per row (median); default 5")
    parser.add_argument("--slow-runs", type=int, default=1, help="Runs for TorchFix and Fixit; default 1")
    parser.add_argument("--jobs", type=int, default=2, help="dslint --jobs for the main cold row; default 2")
    parser.add_argument("--python", default=sys.executable, help="Python that has dslint installed")
    parser.add_argument("--torchfix", help="Path to a `torchfix` executable (skipped when absent)")
    parser.add_argument("--fixit", help="Path to a `fixit` executable (skipped when absent)")
    parser.add_argument("--ruff", default=shutil.which("ruff") or str(Path(sys.executable).parent / "ruff"),
                        help="Path to a `ruff` executable: the reference rows (default: the one on PATH or beside --python)")
    parser.add_argument("--baseline", metavar="REV",
                        help="Also time dslint as of this git revision (its src/, same Python and packages)")
    parser.add_argument("--baseline-src", metavar="DIR",
                        help="Also time the dslint package under DIR (a src/ folder, e.g. a patched copy)")
    parser.add_argument("--slow-timeout", type=float, default=900, help="Seconds before TorchFix/Fixit are stopped")
    parser.add_argument("--only-outputs", action="store_true",
                        help="Only the floor and the `-o json`/`-o sarif`/`fix --diff` rows against `-o concise` (and the baseline's)")
    args = parser.parse_args(argv)

    repo = Path(__file__).resolve().parent.parent
    scratch = Path(tempfile.mkdtemp(prefix="dslint-bench-"))
    try:
        roots = [Path(c).resolve() for c in args.corpus]
        if args.generate or not roots:
            generated = scratch / "generated"
            generate_corpus(generated, args.generate or 300)
            roots.append(generated)
        for root in roots:
            if not root.exists():
                parser.error(f"{root}: no such file or folder")
        files = python_files(roots)
        lines = count_lines(files)
        paths = [str(r) for r in roots]
        work = scratch / "cwd"  # dslint writes its cache under the working directory: keep it here
        work.mkdir()
        env = dict(os.environ, NO_COLOR="1")
        dslint = [args.python, "-m", "dslint"]
        check = dslint + ["check", "-q", "-o", "concise", "--no-progress"]
        rows: list[Row] = []
        print(f"# dslint check speed\n\nMachine: {machine()}\nCorpus: {', '.join(paths)} "
              f"({len(files)} Python files, {lines:,} lines)\n", flush=True)

        floor = repeat(Row("floor: `ast.parse` of every .py, 1 process", "python -c <parse loop> FILES",
                           len(files), lines), [args.python, "-c", FLOOR_CODE, *map(str, files)], args.runs, cwd=str(work))
        rows.append(floor)
        base_src = None
        if args.baseline or args.baseline_src:
            base_src = Path(args.baseline_src) if args.baseline_src else baseline_tree(args.baseline, repo, scratch / "baseline")
        outputs = dict(check=check, dslint=dslint, paths=paths, files=len(files), lines=lines, runs=args.runs,
                       cwd=str(work), jobs=args.jobs)
        rows += output_rows("", env=env, **outputs)
        if base_src is not None:
            rows += output_rows(f"baseline `{args.baseline or args.baseline_src}` ",
                                env=dict(env, PYTHONPATH=str(base_src)), **outputs)
        if args.only_outputs:
            print(table(rows, floor))
            return 0

        def clear_cache() -> None:
            shutil.rmtree(work / ".dslint_cache", ignore_errors=True)

        cold = Row(f"dslint cold, `--no-cache --jobs {args.jobs}`", " ".join(check[2:] + ["--no-cache", "--jobs", str(args.jobs)]),
                   len(files), lines, target=TARGETS["cold"])
        rows.append(repeat(cold, check + ["--no-cache", "--jobs", str(args.jobs), *paths], args.runs, cwd=str(work), env=env))
        single = Row("dslint cold, `--no-cache --jobs 1`", "", len(files), lines)
        rows.append(repeat(single, check + ["--no-cache", "--jobs", "1", *paths], args.runs, cwd=str(work), env=env))
        if single.samples and cold.samples:
            cold.note = f"speed-up from {args.jobs} workers: {single.wall / cold.wall:.2f}x wall"
        clear_cache()
        measure(check + ["--jobs", str(args.jobs), *paths], cwd=str(work), env=env)  # fill the cache
        cache_files = list((work / ".dslint_cache").glob("*.pickle"))
        cache_size = sum(p.stat().st_size for p in cache_files) / 1024 / 1024
        warm = Row("dslint warm (cache filled by a previous run)", "", len(files), lines, target=TARGETS["warm"],
                   note=f"cache {cache_size:.1f} MiB")
        rows.append(repeat(warm, check + ["--jobs", str(args.jobs), *paths], args.runs, cwd=str(work), env=env))
        clear_cache()

        sample = precommit_sample(files)
        pre = Row(f"dslint on {len(sample)} files (pre-commit), start-up included", "", len(sample), count_lines(sample),
                  target=TARGETS["precommit"])
        rows.append(repeat(pre, check + ["--no-cache", *map(str, sample)], args.runs, cwd=str(work), env=env))
        startup = Row("`python -m dslint version` (start-up only)", "", 0, 0)
        rows.append(repeat(startup, dslint + ["version"], args.runs, cwd=str(work), env=env))
        if args.ruff and Path(args.ruff).exists():
            ruff = [args.ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", "-q"]
            rows.append(repeat(Row(f"ruff on {len(sample)} files, `--select ALL` (reference)", "", len(sample),
                                   count_lines(sample)), ruff + list(map(str, sample)), args.runs, cwd=str(work), env=env))
            rows.append(repeat(Row("ruff cold, `--select ALL --no-cache` (reference)", "", len(files), lines),
                               ruff + paths, args.runs, cwd=str(work), env=env))
        bare = Row("`python -c pass` (interpreter only)", "", 0, 0)
        rows.append(repeat(bare, [args.python, "-c", "pass"], args.runs, cwd=str(work)))

        if base_src is not None:
            label = args.baseline or args.baseline_src
            base_env = dict(env, PYTHONPATH=str(base_src))
            base = Row(f"baseline `{label}` cold, `--no-cache --jobs {args.jobs}`", "", len(files), lines)
            rows.append(repeat(base, check + ["--no-cache", "--jobs", str(args.jobs), *paths], args.runs,
                               cwd=str(work), env=base_env))
            base_j1 = Row(f"baseline `{label}` cold, `--no-cache --jobs 1`", "", len(files), lines)
            rows.append(repeat(base_j1, check + ["--no-cache", "--jobs", "1", *paths], args.runs,
                               cwd=str(work), env=base_env))
            clear_cache()
            measure(check + ["--jobs", str(args.jobs), *paths], cwd=str(work), env=base_env)
            base_warm = Row(f"baseline `{label}` warm", "", len(files), lines)
            rows.append(repeat(base_warm, check + ["--jobs", str(args.jobs), *paths], args.runs, cwd=str(work), env=base_env))
            clear_cache()
            base_pre = Row(f"baseline `{label}` on {len(sample)} files", "", len(sample), count_lines(sample))
            rows.append(repeat(base_pre, check + ["--no-cache", *map(str, sample)], args.runs, cwd=str(work), env=base_env))

        for name, exe, cmd in (("TorchFix", args.torchfix, []),
                               ("Fixit", args.fixit, ["lint"])):
            row = Row(f"{name} (`{Path(exe).name if exe else name.lower()} {' '.join(cmd)}`)", "", len(files), lines)
            if not exe or not Path(exe).exists():
                row.note = f"skipped: pass --{name.lower()} PATH (e.g. /tmp/bench-venv/bin/{name.lower()})"
            else:
                tool_env = dict(os.environ, PATH=f"{Path(exe).parent}{os.pathsep}{os.environ.get('PATH', '')}")
                repeat(row, [exe, *cmd, *paths], args.slow_runs, cwd=str(work), env=tool_env, timeout=args.slow_timeout,
                       ok_codes=())  # TorchFix exits 0 with findings, Fixit 3 (findings + a crashed file)
                row.note = f"exit {row.samples[0].rc}" if row.samples else row.note
                if cold.samples and row.samples:
                    row.note += f"; dslint cold is {row.wall / cold.wall:.0f}x faster (wall), {row.cpu / cold.cpu:.0f}x less CPU"
            rows.append(row)

        print(table(rows, floor))
        heavy = heavy_imports(dslint, [str(p) for p in sample], str(work), env)
        print(f"\nHeavy framework imports on the check path (`-X importtime`): {', '.join(heavy) if heavy else 'none'}")
        if floor.samples and cold.samples:
            print(f"dslint cold CPU / ast floor CPU: {cold.cpu / floor.cpu:.2f}x (target <= 2.5x); "
                  f"one worker: {single.cpu / floor.cpu:.2f}x")
        return 1 if heavy else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
