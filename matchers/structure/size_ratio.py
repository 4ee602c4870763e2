"""Size filter: relative differences of file size, tag count and paragraph count.

Tomás et al., *WebMining*, section 2.2 ("three different comparisons are performed between both
pages: file size, number of HTML tags and number of paragraphs") with the thresholds of
section 4 (30%, 20% and 40%).

The relative difference of two sizes is ``|a - b| / max(a, b)``.  File size is measured twice, in
bytes of the body and in script-weighted characters of the decoded document, and the smaller
difference counts.  A page in a script that takes two bytes a character (Cyrillic, Greek, Arabic
in UTF-8) is far larger in bytes than its translation in a Latin script but close in characters.
A Chinese, Japanese or Korean character carries about as much as three Latin ones, so it counts
three (``matchers.page.script_length``); a CJK page is then close to its translations in weighted
characters, and a Cyrillic-CJK pair, which neither bytes nor plain characters bring together, is
too.  Comparing either way keeps the filter language-independent: on the development site 97% of
the gold pairs pass it where bytes alone let 81% through (docs/evaluation.md).
"""

from __future__ import annotations

import os

import numba
import numpy as np

_CACHE = os.path.isfile(__file__)


def relative_difference(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """``|a - b| / max(a, b)``, 0 when both are 0; vectorized."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    hi = np.maximum(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.abs(a - b) / hi
    return np.where(hi > 0, d, 0.0)


def file_size_difference(
    bytes_a: float, chars_a: float, bytes_b: np.ndarray, chars_b: np.ndarray
) -> np.ndarray:
    """Smaller of the byte and weighted-character relative differences (see the module docstring)."""
    return np.minimum(relative_difference(bytes_a, bytes_b), relative_difference(chars_a, chars_b))


def size_scores(
    page: tuple[float, float, float, float], others: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
) -> dict[str, np.ndarray]:
    """Differences of one page ``(bytes, chars, tags, paragraphs)`` against arrays of others (the
    plain definition; the size filter computes the same in one pass, :func:`size_passing`)."""
    b, c, t, p = page
    ob, oc, ot, op = others
    return {
        "size_file": file_size_difference(b, c, ob, oc),
        "size_tags": relative_difference(t, ot),
        "size_paragraphs": relative_difference(p, op),
    }


def size_mask(
    scores: dict[str, np.ndarray], file_tol: float, tags_tol: float, paragraphs_tol: float
) -> np.ndarray:
    """Which candidates pass all three size comparisons."""
    return (
        (scores["size_file"] <= file_tol)
        & (scores["size_tags"] <= tags_tol)
        & (scores["size_paragraphs"] <= paragraphs_tol)
    )


# Not nogil: the kernels take microseconds, and giving the GIL up on the reactor thread would cost
# a wait to win it back from the crawl's other threads.
@numba.njit(cache=_CACHE)
def _rel(a: float, b: float) -> float:
    hi = max(a, b)
    return abs(a - b) / hi if hi > 0 else 0.0


@numba.njit(cache=_CACHE)
def _passing(own, size_bytes, size_chars, n_tags, n_paragraphs, rows, file_tol, tags_tol, paragraphs_tol):  # noqa: ANN001, ANN202
    n = len(rows)
    keep = np.empty(n, np.int64)
    kept = np.empty(n, np.int64)
    file = np.empty(n)
    tags = np.empty(n)
    paragraphs = np.empty(n)
    k = 0
    for i in range(n):
        r = rows[i]
        t = _rel(own[2], float(n_tags[r]))
        if not t <= tags_tol:
            continue
        p = _rel(own[3], float(n_paragraphs[r]))
        if not p <= paragraphs_tol:
            continue
        f = min(_rel(own[0], float(size_bytes[r])), _rel(own[1], float(size_chars[r])))
        if not f <= file_tol:
            continue
        keep[k] = i
        kept[k] = r
        file[k] = f
        tags[k] = t
        paragraphs[k] = p
        k += 1
    return keep[:k], kept[:k], file[:k], tags[:k], paragraphs[:k]


def size_passing(
    page: tuple[float, float, float, float],
    columns: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    rows: np.ndarray,
    file_tol: float,
    tags_tol: float,
    paragraphs_tol: float,
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Positions in ``rows`` of the pages (``columns[k][rows]``) that pass all three size
    comparisons, those pages' rows, and their :func:`size_scores`; what
    ``size_mask(size_scores(...))`` selects, in one pass that never builds the scores of the pages
    that fail (most of them on a large site).

    The kernel builds every output itself: numpy would let the GIL go on arrays of a large
    site's rows, and the reactor thread that calls this would then wait to have it back."""
    own = np.asarray(page, dtype=np.float64)
    keep, kept, file, tags, paragraphs = _passing(
        own, *columns, np.asarray(rows, dtype=np.int64), file_tol, tags_tol, paragraphs_tol
    )
    return keep, kept, {"size_file": file, "size_tags": tags, "size_paragraphs": paragraphs}
