"""Did-you-mean for config keys: the nearest valid key at the same level, or elsewhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.8
STAGE3_PREFIX = "stage3_"


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent swaps."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def _close(key: str, candidate: str) -> float:
    """A closeness score in [0, 1]; 0 when the two are not plausibly the same key."""
    a, b = key.lower(), candidate.lower()
    ratio = difflib.SequenceMatcher(None, a, b).ratio()
    distance = edit_distance(a, b)
    allowed = 1 if min(len(a), len(b)) < 8 else 2 if min(len(a), len(b)) < 16 else 3
    if distance <= allowed:
        return max(ratio, 1.0 - distance / (len(b) + 1))
    return ratio if ratio >= CUTOFF else 0.0


def nearest(key: str, candidates: Iterable[str]) -> tuple[str | None, bool]:
    """The closest candidate to a misspelled key, and whether it is the single clear match.

    Case differences and a missing/extra "stage3_" prefix count as exact. Otherwise a
    candidate must be a few edits away (one for short keys; adjacent swaps count as one edit)
    or have a similarity ratio of at least CUTOFF; the match is unambiguous when no other
    candidate comes within 0.05 of it.
    """
    names = sorted(set(candidates))
    lowered = [n for n in names if n.lower() == key.lower()]
    if len(lowered) == 1:
        return lowered[0], True
    for variant in (STAGE3_PREFIX + key, key.removeprefix(STAGE3_PREFIX)):
        if variant != key and variant in names:
            return variant, True
    scored = sorted(((_close(key, n), n) for n in names), reverse=True)
    if not scored or scored[0][0] <= 0.0:
        return None, False
    best_score, best = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    return best, best_score - runner_up >= 0.05
