"""Word translations a crawl's translation model has learnt, as a bilingual dictionary.

The IBM-1 model of a language pair (matchers.content.translation_model) is trained on the sentence
pairs of the pages a crawl pairs.  Written in Bitextor's dictionary format (the format
``BITEXT_DICTIONARY`` and the PCB filter read, matchers.content.dictionary_filter), what one
site's crawl learnt gives the next crawl a dictionary: for a pair of newspaper editions with no
dictionary of their own, a crawl of a templated site in the same languages is where it comes from.

An entry is kept when the kept expected counts make it a translation both ways: ``c(w2, w1)`` of at
least ``min_count`` sentence pairs' worth, and both ``t(w2|w1)`` and ``t(w1|w2)`` (learnt part
only, ``c / (c(w) + smoothing)``, without the initial distribution) at least ``min_prob``.  Both
directions, because one direction alone pairs every rare word with a frequent one (IBM-1's
garbage collectors, Moore 2004).  Identical strings are left out (numbers, names and URLs are
found unchanged by the filter anyway), and so are tokens without a letter.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

import numpy as np

from matchers.content.model_counts import _LOW
from matchers.content.translation_model import TranslationModel


def learned_pairs(
    model: TranslationModel, min_prob: float = 0.2, min_count: float = 2.0
) -> Iterator[tuple[str, str, float]]:
    """``(word of lang1, word of lang2, min of the two probabilities)``, by word of lang1, then
    best first."""
    counts = model.counts()
    keys, c21, c12 = counts.keys, counts.c21, counts.c12
    if not len(keys):
        return
    i1, i2 = (keys >> 32).astype(np.int64), (keys & _LOW).astype(np.int64)
    lam = model.smoothing
    t21 = c21 / (counts.tot1[i1] + lam)
    t12 = c12 / (counts.tot2[i2] + lam)
    prob = np.minimum(t21, t12)
    keep = (i1 > 0) & (i2 > 0) & (np.minimum(c21, c12) >= min_count) & (prob >= min_prob)
    rows = np.flatnonzero(keep)
    words1, words2 = counts.words1, counts.words2
    found = []
    for r in rows.tolist():
        w1, w2 = words1[i1[r]], words2[i2[r]]
        if w1 == w2 or len(w1) < 2 or len(w2) < 2:
            continue
        if not (any(ch.isalpha() for ch in w1) and any(ch.isalpha() for ch in w2)):
            continue
        found.append((w1, w2, float(prob[r])))
    found.sort(key=lambda e: (e[0], -e[2], e[1]))
    yield from found


def write_dictionary(model: TranslationModel, first: str, fh: TextIO, min_prob: float = 0.2,
                     min_count: float = 2.0) -> int:
    """Write the learnt pairs in Bitextor's format with ``first`` (one of the model's languages)
    as the first column; returns the number of word pairs."""
    flip = first != model.lang1
    second = model.lang1 if flip else model.lang2
    fh.write(f"{first}\t{second}\n")
    n = 0
    for w1, w2, _p in learned_pairs(model, min_prob, min_count):
        fh.write(f"{w2}\t{w1}\n" if flip else f"{w1}\t{w2}\n")
        n += 1
    return n
