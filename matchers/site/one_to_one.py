"""One-to-one resolution of candidate pairs, best score first.

Each page pairs with at most one page of each other language: candidates are taken greedily in
decreasing score order, and one is dropped when either page already has a partner in the other
page's language.  This is the rule of the WMT16 document-alignment task and what Tomás et al.
(*WebMining*, section 2.2) imply by detecting "parallel webpages" rather than sets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scored:
    page1: int
    lang1: str
    page2: int
    lang2: str
    score: float
    # Compared after the score, larger first: the decision's terms saturate (a structure term is
    # capped at its weight), so pairs with the same score are common on templated sites, and the
    # finer evidence behind the score then orders them better than arrival order would.
    tiebreak: tuple[float, ...] = ()


_NONE = (float("inf"),)  # no tiebreak: after every candidate that has one


def resolve_one_to_one(candidates: Iterable[Scored]) -> list[Scored]:
    """Greedy best-first matching: by score, then by ``tiebreak``, then by page ids, so the result
    is deterministic."""
    ordered = sorted(
        candidates,
        key=lambda c: (-c.score, tuple(-x for x in c.tiebreak) or _NONE, min(c.page1, c.page2), max(c.page1, c.page2)),
    )
    taken: set[tuple[int, str]] = set()
    chosen: list[Scored] = []
    for c in ordered:
        if c.lang1 == c.lang2:
            continue
        if (c.page1, c.lang2) in taken or (c.page2, c.lang1) in taken:
            continue
        taken.add((c.page1, c.lang2))
        taken.add((c.page2, c.lang1))
        chosen.append(c)
    return chosen


# The score a candidate is ranked by in the one-to-one resolution, by preference: a combined
# decision score if a later filter wrote one, else the structure similarity, else size closeness.
RANK_KEYS = ("score", "structure")


def rank_scores(scores: dict[str, np.ndarray], n: int) -> np.ndarray:
    for key in RANK_KEYS:
        if key in scores:
            return np.asarray(scores[key], dtype=np.float64)
    if "size_file" in scores:
        return 1.0 - np.asarray(scores["size_file"], dtype=np.float64)
    return np.ones(n)
