"""Script-weighted length of a text: what the size filter, the fingerprints and the content
lengths count (matchers.structure.size_ratio explains the weighting).  Kept apart from the size
filter's kernels so the page-parse worker does not load numba for it."""

from __future__ import annotations

import re

_DENSE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
DENSE_WEIGHT = 3


def script_weighted_length(text: str) -> int:
    """Characters of ``text``, with CJK ideographs, kana and Hangul syllables counting three."""
    return len(text) + (DENSE_WEIGHT - 1) * len(_DENSE.findall(text))
