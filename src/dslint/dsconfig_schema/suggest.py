"""Did-you-mean for config keys: the nearest valid key at the same level, or elsewhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.8
STAGE3_PREFIX = "stage3_"


def _score(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def nearest(key: str, candidates: Iterable[str]) -> tuple[str | None, bool]:
    """The closest candidate to a misspelled key, and whether it is the single clear match.

    Case differences and a missing/extra "stage3_" prefix count as exact. Otherwise a
    candidate needs a similarity ratio of at least CUTOFF; the match is unambiguous when no
    other candidate comes within 0.05 of it.
    """
    names = sorted(set(candidates))
    lowered = [n for n in names if n.lower() == key.lower()]
    if len(lowered) == 1:
        return lowered[0], True
    for variant in (STAGE3_PREFIX + key, key.removeprefix(STAGE3_PREFIX)):
        if variant != key and variant in names:
            return variant, True
    scored = sorted(((_score(key, n), n) for n in names), reverse=True)
    if not scored or scored[0][0] < CUTOFF:
        return None, False
    best_score, best = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    return best, best_score - runner_up >= 0.05
