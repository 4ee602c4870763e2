"""Size filter: relative differences of file size, tag count and paragraph count.

Tomás et al., *WebMining*, section 2.2 ("three different comparisons are performed between both
pages: file size, number of HTML tags and number of paragraphs") with the thresholds of
section 4 (30%, 20% and 40%).

The relative difference of two sizes is ``|a - b| / max(a, b)``.  File size is measured twice, in
bytes of the body and in script-weighted characters of the decoded document, and the smaller
difference counts.  A page in a script that takes two bytes a character (Cyrillic, Greek, Arabic
in UTF-8) is far larger in bytes than its translation in a Latin script but close in characters.
A Chinese, Japanese or Korean character carries about as much as three Latin ones, so it counts
three (``script_weighted_length``); a CJK page is then close to its translations in weighted
characters, and a Cyrillic-CJK pair, which neither bytes nor plain characters bring together, is
too.  Comparing either way keeps the filter language-independent: on the development site 97% of
the gold pairs pass it where bytes alone let 81% through (docs/evaluation.md).
"""

from __future__ import annotations

import re

import numpy as np

_DENSE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
DENSE_WEIGHT = 3


def script_weighted_length(text: str) -> int:
    """Characters of ``text``, with CJK ideographs, kana and Hangul syllables counting three."""
    return len(text) + (DENSE_WEIGHT - 1) * len(_DENSE.findall(text))


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
    """Differences of one page ``(bytes, chars, tags, paragraphs)`` against arrays of others."""
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
