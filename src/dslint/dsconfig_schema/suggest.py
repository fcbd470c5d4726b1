"""Did-you-mean for config keys: the nearest valid key at the same level, or elsewhere.

The score is the one it always was (difflib's ratio, or an edit distance of a few), but only
for the candidates that can score at all: a candidate a few edits away has a length within a
few characters and shares most of the key's character pairs; one with a ratio of at least
CUTOFF has a length within 2/3..3/2 of the key's and shares a fifth of them. Both bounds are
checked with set operations on an index built once per candidate list, so a key costs tens of
microseconds instead of milliseconds, and a key longer than MAX_KEY_CHARS gets no suggestion.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..similarity import edit_distance  # noqa: F401  (re-exported: the exact score of a candidate)

CUTOFF = 0.8
STAGE3_PREFIX = "stage3_"
MAX_KEY_CHARS = 100  # DeepSpeed's longest key has 41; a longer one is not a typo of any


def distance_within(a: str, b: str, limit: int) -> int | None:
    """edit_distance(a, b) when it is at most `limit`, else None: only the diagonal band
    |i - j| <= limit is filled, and a row whose every cell exceeds `limit` ends the search."""
    if abs(len(a) - len(b)) > limit:
        return None
    far = limit + 1
    width = len(b)
    previous2: list[int] = []
    previous = [j if j <= limit else far for j in range(width + 1)]
    for i in range(1, len(a) + 1):
        low, high = max(1, i - limit), min(width, i + limit)
        current = [far] * (width + 1)
        if i <= limit:
            current[0] = i
        for j in range(low, high + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, previous2[j - 2] + 1)
            current[j] = min(value, far)
        if min(current[max(0, low - 1):high + 1]) > limit:
            return None
        previous2, previous = previous, current
    return previous[width] if previous[width] <= limit else None


def _allowed(a: str, b: str) -> int:
    shorter = min(len(a), len(b))
    return 1 if shorter < 8 else 2 if shorter < 16 else 3


def _close(key: str, candidate: str) -> float:
    """A closeness score in [0, 1]; 0 when the two are not plausibly the same key."""
    a, b = key.lower(), candidate.lower()
    ratio = difflib.SequenceMatcher(None, a, b).ratio()
    distance = distance_within(a, b, _allowed(a, b))
    if distance is not None:
        return max(ratio, 1.0 - distance / (len(b) + 1))
    return ratio if ratio >= CUTOFF else 0.0


def _pairs(text: str) -> frozenset:
    """The multiset of adjacent character pairs, as a set (the n-th "ab" is ("ab", n))."""
    seen: dict[str, int] = {}
    out = []
    for i in range(len(text) - 1):
        pair = text[i:i + 2]
        seen[pair] = seen.get(pair, 0) + 1
        out.append((pair, seen[pair]))
    return frozenset(out)


@dataclass(frozen=True)
class _Candidates:
    names: frozenset
    by_lower: dict  # lowered name -> the names spelled so
    by_length: dict  # length of the lowered name -> [(name, its pairs)]


@lru_cache(maxsize=64)
def _index(names: frozenset) -> _Candidates:
    by_lower: dict[str, list[str]] = {}
    by_length: dict[int, list] = {}
    for name in sorted(names):
        lowered = name.lower()
        by_lower.setdefault(lowered, []).append(name)
        by_length.setdefault(len(lowered), []).append((name, _pairs(lowered)))
    return _Candidates(names, by_lower, by_length)


def _plausible(key: str, index: _Candidates):
    """The candidates whose score can be above 0 (a superset: each is scored exactly after)."""
    size = len(key)
    pairs = _pairs(key)
    # An edit of a few: |length difference| <= 3. A ratio >= CUTOFF: 2*min/(sum) >= 0.8.
    lowest = min(size - 3, -(-2 * size // 3))
    highest = max(size + 3, size * 3 // 2)
    for length in range(max(0, lowest), highest + 1):
        group = index.by_length.get(length)
        if not group:
            continue
        # Each edit breaks at most three of the key's pairs; a ratio's matching blocks share
        # M - blocks >= 0.2 * (len(a) + len(b)) - 1 pairs (the CUTOFF = 0.8 bounds, in integers).
        allowed = _allowed(key, "x" * length)
        need = []
        if abs(size - length) <= allowed:
            need.append(size - 1 - 3 * allowed)
        if 5 * min(size, length) >= 2 * (size + length):
            need.append(-(-(size + length - 5) // 5))
        if not need:
            continue
        least = min(need)
        for name, their_pairs in group:
            if len(pairs & their_pairs) >= least:
                yield name


def nearest(key: str, candidates: Iterable[str]) -> tuple[str | None, bool]:
    """The closest candidate to a misspelled key, and whether it is the single clear match.

    Case differences and a missing/extra "stage3_" prefix count as exact. Otherwise a
    candidate must be a few edits away (one for short keys; adjacent swaps count as one edit)
    or have a similarity ratio of at least CUTOFF; the match is unambiguous when no other
    candidate comes within 0.05 of it.
    """
    if len(key) > MAX_KEY_CHARS:
        return None, False
    index = _index(candidates if isinstance(candidates, frozenset) else frozenset(candidates))
    lowered = index.by_lower.get(key.lower(), [])
    if len(lowered) == 1:
        return lowered[0], True
    for variant in (STAGE3_PREFIX + key, key.removeprefix(STAGE3_PREFIX)):
        if variant != key and variant in index.names:
            return variant, True
    scored = sorted(((_close(key, n), n) for n in _plausible(key.lower(), index)), reverse=True)
    if not scored or scored[0][0] <= 0.0:
        return None, False
    best_score, best = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    return best, best_score - runner_up >= 0.05
