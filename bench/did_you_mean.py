"""The DeepSpeed config did-you-mean: milliseconds per unknown key, against the old implementation.

    .venv/bin/python bench/did_you_mean.py [--runs 5]

Rows (median CPU time of --runs): `nearest()` per unknown key against every key DeepSpeed accepts
somewhere, validate_config on configs with 100 and 1,000 unknown top-level keys (with and
without the did-you-mean, which only DSL601 shows), and one very long key. `baseline` is the
implementation before issue 13 #5 / issue 14 #6 (difflib's ratio and a full edit distance for
every candidate, the "elsewhere" table rebuilt per key), kept here so both run in one process.
Target: at most 0.5 ms per unknown key.
"""
from __future__ import annotations

import argparse
import difflib
import random
import statistics
import string
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dslint.dsconfig_schema import suggest, validate  # noqa: E402
from dslint.dsconfig_schema.keyindex import locations  # noqa: E402
from tests.test_bad_input import candidate_names as names, typo  # noqa: E402


# -- baseline: the implementation before the change ------------------------------------------------

def baseline_nearest(key: str, candidates) -> tuple:
    names = sorted(set(candidates))
    lowered = [n for n in names if n.lower() == key.lower()]
    if len(lowered) == 1:
        return lowered[0], True
    for variant in (suggest.STAGE3_PREFIX + key, key.removeprefix(suggest.STAGE3_PREFIX)):
        if variant != key and variant in names:
            return variant, True
    scored = sorted(((_baseline_close(key, n), n) for n in names), reverse=True)
    if not scored or scored[0][0] <= 0.0:
        return None, False
    best_score, best = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    return best, best_score - runner_up >= 0.05


def _baseline_close(key: str, candidate: str) -> float:
    a, b = key.lower(), candidate.lower()
    ratio = difflib.SequenceMatcher(None, a, b).ratio()
    distance = suggest.edit_distance(a, b)
    allowed = 1 if min(len(a), len(b)) < 8 else 2 if min(len(a), len(b)) < 16 else 3
    if distance <= allowed:
        return max(ratio, 1.0 - distance / (len(b) + 1))
    return ratio if ratio >= suggest.CUTOFF else 0.0


def _baseline_homes(version: str) -> dict:
    return {p[-1]: p for ps in locations(version).values() for p in ps if len(ps) == 1}


def baseline():
    """validate.py as it was: the old nearest() and the table rebuilt for every key."""
    return mock.patch.multiple(validate, nearest=baseline_nearest, _single_homes=_baseline_homes)


# -- inputs ---------------------------------------------------------------------------------------------

def unknown_keys(count: int, seed: int = 0) -> list[str]:
    """Half typos of real keys, half unrelated words (the two ways a key is unknown)."""
    rng = random.Random(seed)
    pool = names()
    keys = []
    for i in range(count):
        if i % 2:
            keys.append("".join(rng.choice(string.ascii_lowercase + "_") for _ in range(rng.randrange(4, 30))))
        else:
            keys.append(typo(rng, rng.choice(pool)))
    return [f"{k}{i}" if k in pool else k for i, k in enumerate(keys)]


# -- measuring ---------------------------------------------------------------------------------------------

def median_seconds(func, runs: int) -> float:
    """Median CPU seconds of `runs` calls (CPU, not wall: the bench machine is shared)."""
    times = []
    for _ in range(runs):
        started = time.process_time()
        func()
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pool = names()
    keys = unknown_keys(200)
    rows = []

    for label, nearest in (("baseline", baseline_nearest), ("dslint", suggest.nearest)):
        seconds = median_seconds(lambda: [nearest(k, pool) for k in keys], args.runs)
        rows.append((f"nearest(), {len(keys)} keys x {len(pool)} candidates", label, seconds, len(keys)))
    for count in (100, 1000):
        config = {"train_batch_size": 8, **{k: 1 for k in unknown_keys(count, seed=count)}}
        with baseline():
            seconds = median_seconds(lambda: validate.validate_config(config), 1 if count > 100 else args.runs)
        rows.append((f"validate_config, {count} unknown keys", "baseline", seconds, count))
        seconds = median_seconds(lambda: validate.validate_config(config), args.runs)
        rows.append((f"validate_config, {count} unknown keys", "dslint", seconds, count))
        seconds = median_seconds(lambda: validate.validate_config(config, suggest=False), args.runs)
        rows.append((f"validate_config, {count} unknown keys", "dslint, DSL601 off", seconds, count))
    long_key = {"k" * 1_000_000: 1}
    seconds = median_seconds(lambda: validate.validate_config(long_key), args.runs)
    rows.append(("validate_config, one 1 MB key", "dslint", seconds, 1))
    with baseline():
        seconds = median_seconds(lambda: validate.validate_config({"k" * 2_000: 1}), 1)
    rows.append(("validate_config, one 2 kB key (a 1 MB key: > 400 s)", "baseline", seconds, 1))

    print(f"{'case':56} {'implementation':20} {'CPU s':>10} {'ms per key':>11}")
    for case, label, seconds, count in rows:
        print(f"{case:56} {label:20} {seconds:10.4f} {seconds / count * 1000:11.3f}")
    per_key = next(s / n for c, label, s, n in rows if c.startswith("validate_config, 1000") and label == "dslint") * 1000
    print(f"\ntarget: <= 0.5 ms per unknown key; validate_config with 1,000 unknown keys: {per_key:.3f} ms per key "
          f"({'met' if per_key <= 0.5 else 'NOT met'})")


if __name__ == "__main__":
    main()
