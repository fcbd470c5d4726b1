"""A long fuzz campaign over broken copies of examples/ (the generator of tests/test_fuzz.py).

    .venv/bin/python bench/fuzz.py --seconds 300 [--inputs N] [--seed 0] [--cli-every 25] [--save DIR]

Each input is checked in-process (no exception escapes the engine or the reporters, `-o json`
and SARIF are valid JSON, `fix` never breaks a file that parses); every --cli-every-th input also
goes through `python -m dslint check -o json` (exit code 0/1/2, no traceback, valid JSON). An
input that runs past --hang-seconds counts as a failure. Prints the counts of inputs and
failures (by mutation and by the first line of the error); with --save, each failing input is
written there with its seed file and mutations in the name.
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.test_fuzz import EXAMPLES, SEEDS, check_properties, mutate  # noqa: E402


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang("input ran past the hang limit")


def check_cli(seed: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        shutil.copytree(EXAMPLES / Path(seed).parent, root, dirs_exist_ok=True)
        (root / Path(seed).name).write_bytes(data)
        run = subprocess.run([sys.executable, "-m", "dslint", "check", "--no-cache", "-o", "json", str(root)],
                             capture_output=True, text=True, timeout=120, cwd=root)
        assert run.returncode in (0, 1, 2), f"exit code {run.returncode}: {run.stderr.strip()[-200:]}"
        assert "Traceback" not in run.stderr, run.stderr.strip().splitlines()[-1]
        json.loads(run.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--inputs", type=int, default=0, help="stop after this many inputs (0: only --seconds)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cli-every", type=int, default=25)
    parser.add_argument("--fix-every", type=int, default=2, help="run the fix property on every n-th input")
    parser.add_argument("--hang-seconds", type=int, default=60)
    parser.add_argument("--save", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    signal.signal(signal.SIGALRM, _alarm)
    counts: collections.Counter = collections.Counter()
    failures: collections.Counter = collections.Counter()
    by_mutation: collections.Counter = collections.Counter()
    seen_mutations: collections.Counter = collections.Counter()
    started = time.monotonic()
    number = 0
    while time.monotonic() - started < args.seconds and (not args.inputs or number < args.inputs):
        number += 1
        seed = rng.choice(SEEDS)
        data, names = mutate(rng, seed)
        seen_mutations.update(set(names))
        counts["inputs"] += 1
        cli = args.cli_every and number % args.cli_every == 0
        fix = args.fix_every and number % args.fix_every == 0 and not seed.endswith(".sh")
        signal.alarm(args.hang_seconds)
        try:
            check_properties(seed, data, fix=bool(fix))
            counts["fix runs"] += bool(fix)
            if cli:
                check_cli(seed, data)
                counts["cli runs"] += 1
        except Exception as error:  # the campaign records and goes on
            counts["failures"] += 1
            line = traceback.format_exception_only(type(error), error)[-1].strip()[:160]
            failures[line] += 1
            by_mutation.update(set(names))
            if args.save:
                args.save.mkdir(parents=True, exist_ok=True)
                name = f"{number:06d}-{seed.replace('/', '_')}-{'+'.join(names)}{Path(seed).suffix}"
                (args.save / name).write_bytes(data)
        finally:
            signal.alarm(0)
    elapsed = time.monotonic() - started
    print(f"inputs {counts['inputs']} (fix property on {counts['fix runs']}, CLI on {counts['cli runs']}) in "
          f"{elapsed:.0f} s; failures {counts['failures']}")
    print("inputs per mutation:", dict(sorted(seen_mutations.items())))
    if failures:
        print("failures per mutation:", dict(sorted(by_mutation.items())))
        for line, count in failures.most_common():
            print(f"  {count:5d}  {line}")


if __name__ == "__main__":
    main()
