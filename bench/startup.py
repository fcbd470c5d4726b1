#!/usr/bin/env python3
"""Start-up of `dslint check` on a pre-commit-sized run, against ruff and an older dslint (issue 13).

Not a test: a script that prints a markdown table. Each row is a separate process timed from
outside (CPU = user + sys from `os.wait4`), the median of `--runs` runs; the rows are measured
round-robin, so a change in the machine's load falls on all of them alike.

    python bench/startup.py                          # against HEAD, on 10 example files
    python bench/startup.py --baseline HEAD~3 --runs 21
    python bench/startup.py --files a.py b.py ...    # other files

Rows: the interpreter alone; the floor dslint cannot go below while it keeps typer and pydantic
(a typer app with one command of dslint's size and a pydantic model, invoked); `dslint
--version`; `dslint check --no-cache -q` on the files, this tree and `--baseline`; ruff `check
--select ALL --no-cache` on the same files (the reference). Then the top self times of
`python -X importtime -m dslint check` and the modules a Python-only check must not import.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_speed import baseline_tree, measure  # noqa: E402  (the same timing as the other rows)

REPO = Path(__file__).resolve().parent.parent
TARGET_CPU = 0.12  # issue 13: the 10-file run, start-up included

# What a check of plain Python files (no launch or config file among or near them) has no use for.
NOT_FOR_PYTHON_ONLY = ("dslint.sources.launch.parse", "dslint.sources.launch.facts", "dslint.sources.yaml_configs",
                       "tree_sitter_bash", "yaml", "dslint.dsconfig_schema.validate",
                       "dslint.dsconfig_schema.effective", "pathspec", "statistics", "argparse")

# A typer app shaped like `dslint check` (its option count and types) plus a pydantic model:
# what any typer + pydantic CLI pays before it does any work.
FLOOR_APP = '''
from typing import List, Optional
import typer
from pydantic import BaseModel, Field

class Settings(BaseModel):
    select: List[str] = Field(default_factory=list)
    nodes: Optional[int] = Field(None, ge=1)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

@app.command()
def check(paths: List[str] = typer.Argument(None),
          select: Optional[List[str]] = typer.Option(None), ignore: Optional[List[str]] = typer.Option(None),
          extend_select: Optional[List[str]] = typer.Option(None), output_format: Optional[str] = typer.Option(None, "-o"),
          quiet: bool = typer.Option(False, "-q"), no_cache: bool = typer.Option(False), jobs: Optional[int] = typer.Option(None),
          statistics: bool = typer.Option(False), show_fixes: bool = typer.Option(False), exit_zero: bool = typer.Option(False),
          config: Optional[str] = typer.Option(None), isolated: bool = typer.Option(False),
          nodes: Optional[int] = typer.Option(None), nproc_per_node: Optional[int] = typer.Option(None),
          cpu_cores: Optional[int] = typer.Option(None), deepspeed_version: Optional[str] = typer.Option(None),
          output_file: Optional[str] = typer.Option(None), color: Optional[str] = typer.Option(None),
          per_file_ignores: Optional[List[str]] = typer.Option(None), stdin_filename: Optional[str] = typer.Option(None)):
    Settings(select=select or [], nodes=nodes)

@app.command()
def version():
    pass

app()
'''


def default_files() -> list[Path]:
    """The first 10 Python files of examples/ (sorted): training scripts, what a commit touches."""
    return sorted((REPO / "examples").rglob("*.py"))[:10]


def importtime(python: str, argv: list[str], env: dict) -> tuple[list[tuple[int, str]], set]:
    """(self µs, module) of every import of one run, and the set of module names."""
    proc = subprocess.run([python, "-X", "importtime", *argv], env=env, cwd=str(REPO),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            self_us, _, name = line[len("import time:"):].split("|")
            if self_us.strip().isdigit():
                rows.append((int(self_us), name.strip()))
    return rows, {name for _, name in rows}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", nargs="*", type=Path, help="Files to check (default: 10 from examples/)")
    parser.add_argument("--runs", type=int, default=15, help="Runs per row (median; default 15)")
    parser.add_argument("--baseline", default="HEAD", help="Older dslint to compare with (a git revision; '' for none)")
    parser.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"))
    parser.add_argument("--ruff", default=str(REPO / ".venv" / "bin" / "ruff"))
    parser.add_argument("--top", type=int, default=20, help="How many import self times to list")
    args = parser.parse_args(argv)

    files = [str(p) for p in (args.files or default_files())]
    subprocess.run([args.python, "-m", "compileall", "-q", str(REPO / "src")], check=True)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    check = ["-m", "dslint", "check", "--no-cache", "-q", *files]
    rows: list[tuple[str, str, list[str], dict]] = [
        ("interpreter alone", "python -c pass", [args.python, "-c", "pass"], env),
    ]
    scratch = Path(tempfile.mkdtemp(prefix="dslint-startup-"))
    floor = scratch / "floor_app.py"
    floor.write_text(FLOOR_APP)
    rows.append(("floor: typer + pydantic app of dslint's shape", "python floor_app.py check FILES",
                 [args.python, str(floor), "check", *files], env))
    rows.append(("`dslint --version`", "python -m dslint --version", [args.python, "-m", "dslint", "--version"], env))
    rows.append((f"`dslint check` on {len(files)} files (this tree)", "python -m dslint check --no-cache -q FILES",
                 [args.python, *check], env))
    if args.baseline:
        base_src = baseline_tree(args.baseline, REPO, scratch / "base")
        subprocess.run([args.python, "-m", "compileall", "-q", str(base_src)], check=True)
        base_env = {**os.environ, "PYTHONPATH": str(base_src)}
        rows.append((f"`dslint --version` ({args.baseline})", "same", [args.python, "-m", "dslint", "--version"], base_env))
        rows.append((f"`dslint check` on {len(files)} files ({args.baseline})", "same", [args.python, *check], base_env))
    if Path(args.ruff).exists():
        rows.append((f"ruff on the same {len(files)} files (reference)", "ruff check --select ALL --no-cache -q FILES",
                     [args.ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", "-q", *files], env))

    cpu: dict[str, list[float]] = {name: [] for name, *_ in rows}
    for _ in range(args.runs):
        for name, _, command, row_env in rows:
            cpu[name].append(measure(command, cwd=str(REPO), env=row_env).cpu)

    print(f"{len(files)} files, {args.runs} runs per row, round-robin; CPU = user + sys (os.wait4), median\n")
    print("| Run | command | CPU s (median) | min | max |")
    print("|---|---|---:|---:|---:|")
    for name, shown, *_ in rows:
        samples = cpu[name]
        print(f"| {name} | `{shown}` | {statistics.median(samples):.3f} | {min(samples):.3f} | {max(samples):.3f} |")
    ours = statistics.median(cpu[rows[3][0]])
    print(f"\ntarget (issue 13): the check row at most {TARGET_CPU:.2f} s CPU: "
          f"{'met' if ours <= TARGET_CPU else 'not met'} ({ours:.3f} s)")

    timed, imported = importtime(args.python, check, env)
    print(f"\nTop {args.top} import self times of the check (`-X importtime`, µs; {len(timed)} modules):\n")
    for self_us, name in sorted(timed, reverse=True)[:args.top]:
        print(f"    {self_us:6d}  {name}")
    present = [m for m in NOT_FOR_PYTHON_ONLY if m in imported]
    print(f"\nImported by this Python-only check though it needs none of them: {', '.join(present) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
