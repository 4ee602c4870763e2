"""A document's tokens as word indices: the form the sentence aligner reads and the one a site
keeps every page's main content in (matchers.page.page_content).  Free of numba, so the
page-parse worker does not load it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# A document's distinct words (first-appearance order), each token's word index, sentence offsets.
Encoded = tuple[list[str], np.ndarray, np.ndarray]


def encode(doc: Sequence[Sequence[str]]) -> Encoded:
    """Distinct words (first-appearance order), each token's word index, sentence offsets."""
    flat = [w for sent in doc for w in sent]
    index = {w: i for i, w in enumerate(dict.fromkeys(flat))}
    ids = np.fromiter(map(index.__getitem__, flat), np.int64, len(flat))
    off = np.zeros(len(doc) + 1, np.int64)
    off[1:] = np.cumsum([len(s) for s in doc])
    return list(index), ids, off
