"""Structural fingerprint of a page's main content and the edit-distance ratio of two of them.

Papavassiliou et al., *ILSP-FC*, section 3.9 ("Pair Detector"), after Esplà-Gomis and Forcada
(2010): the fingerprint is "a sequence of integers that represent the structural information of
the page": for each main-content paragraph (boilerplate ignored) its type code, -2 *title*, -3
*heading*, -4 *listitem* (plain text has none), then its length in characters; the paper's
example is ``[-2, 28, 145, -4, 9, -3, 48, -5, 740]``.  Its -5 marks a paragraph with the *topic*
attribute, the domain terms found by ILSP-FC's focused text classifier (section 3.5); this crawler
has no domain definition, so no paragraph has a topic and -5 never occurs.

Two pages are compared by a 3-vector (:func:`fingerprint_features`): the ratio of their
fingerprint lengths, the ratio of their paragraph counts, and "the ratio of the edit distance of
the fingerprints of the two documents to the maximum fingerprint length", which ILSP-FC fed to an
SVM.  The edit distance is rapidfuzz's Levenshtein distance (unit costs) on the integer
sequences.

The lengths of a paragraph and of its translation are practically never equal, so under the
paper's definition every length is a substitution and the distance only sees the type codes and
the paragraph counts.  The bucketed variant (``bucket_base``) replaces each length ``n`` by
``1 + floor(log(n) / log(base))`` before the distance, so paragraphs of similar length match
(with base 2: 100 and 120 characters both fall in bucket 7; the price is that lengths on either
side of a bucket edge, 120 and 130, do not).  Lengths are script weighted by default (a CJK
character counts three, :func:`matchers.structure.size_ratio.script_weighted_length`), so a Chinese
paragraph falls in the bucket of its English original; for Latin, Cyrillic, Greek or Arabic text
they are plain characters, the paper's unit.

Measured on the W3C i18n site (``benchmarks/ilsp_evidence_eval.py``: 440 pages, 87,526
cross-language pairs, 1,561 gold pairs; 1 - ratio as the score, each page's best counterpart per
language taken one-to-one above a threshold):

=====================================  =====  ==========================
variant                                AUC    best threshold: P / R / F1
=====================================  =====  ==========================
paper (exact lengths)                  0.969  0.20: 0.814 / 0.824 / 0.819
log buckets base 2, plain characters   0.954  0.55: 0.988 / 0.814 / 0.892
log buckets base 1.5, weighted         0.991  0.45: 0.966 / 0.917 / 0.941
log buckets base 2, weighted (default) 0.992  0.55: 0.984 / 0.939 / 0.961
log buckets base 3, weighted           0.993  0.60: 0.969 / 0.963 / 0.966
=====================================  =====  ==========================

Base 3 is as good on this site but calls lengths up to three times apart equal, and non-gold
pairs score higher with it (95th percentile 0.51 against 0.43); translations rarely differ by a
factor of two, so base 2 is the default.  A Levenshtein DP that matches two lengths within a
factor of 1.5 or 2 (no bucket edges; a numba DP in the benchmark only) reached AUC 0.993 and F1
0.967-0.970: not enough over the buckets to replace rapidfuzz.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from rapidfuzz.distance import Levenshtein

from matchers.page.main_content import HEADING, LISTITEM, TITLE
from matchers.page.script_length import script_weighted_length
from matchers.site.image_evidence import ratio

TYPE_CODES: dict[str, int] = {TITLE: -2, HEADING: -3, LISTITEM: -4}
# Section 3.9's code for a paragraph with a topic attribute; kept for reading fingerprints made
# elsewhere, never produced here (module docstring).
TOPIC_CODE = -5
# Log base of the length buckets of the default variant (measured: module docstring).
DEFAULT_BUCKET_BASE: float | None = 2.0


def content_paragraphs(paragraphs: Iterable[Any]) -> list[tuple[str, str | None, str]]:
    """``(kind, lang, text)`` of the main-content paragraphs, boilerplate left out.

    Takes :class:`matchers.page.main_content.Paragraph` objects (``lang`` None) or stored
    ``[kind, lang, text]`` triples (:data:`matchers.page.page_content.StoredParagraph`, already
    without boilerplate).
    """
    out: list[tuple[str, str | None, str]] = []
    for p in paragraphs:
        if hasattr(p, "text"):
            if getattr(p, "boilerplate", False):
                continue
            out.append((p.kind, None, p.text))
        else:
            kind, lang, text = p
            out.append((kind, lang, text))
    return out


def fingerprint(paragraphs: Iterable[Any], weighted: bool = True) -> list[int]:
    """Type code (if any) then length of each main-content paragraph, in page order.

    Lengths are script-weighted characters of the (whitespace-normalized) text, plain characters
    (the paper's exact unit) when not ``weighted``; they differ only for CJK text.  Empty
    paragraphs are skipped.
    """
    out: list[int] = []
    for kind, _lang, text in content_paragraphs(paragraphs):
        n = script_weighted_length(text) if weighted else len(text)
        if n <= 0:
            continue
        code = TYPE_CODES.get(kind)
        if code is not None:
            out.append(code)
        out.append(n)
    return out


def paragraph_count(fp: Sequence[int]) -> int:
    """Paragraphs in a fingerprint: its positive entries (the lengths)."""
    return sum(1 for x in fp if x > 0)


def bucketed(fp: Sequence[int], base: float) -> list[int]:
    """The fingerprint with each length ``n`` replaced by ``1 + floor(log_base(n))``; codes kept."""
    if base <= 1:
        raise ValueError(f"bucket base must be > 1, got {base}")
    if base == 2:
        # floor(log2(n)) exactly and without a log call: 5x faster on the default path.
        return [x if x <= 0 else x.bit_length() for x in fp]
    log_base = math.log(base)
    # The small epsilon keeps exact powers (8 with base 2) in their own bucket despite rounding.
    return [x if x <= 0 else 1 + int(math.floor(math.log(x) / log_base + 1e-9)) for x in fp]


def fingerprint_distance_ratio(
    a: Sequence[int], b: Sequence[int], bucket_base: float | None = DEFAULT_BUCKET_BASE
) -> float:
    """Levenshtein distance of the two fingerprints / the longer one's length, in [0, 1].

    ``bucket_base=None`` is the paper's definition (lengths compared exactly); otherwise lengths
    are compared by log bucket.  Two empty fingerprints give 1.0: no structure, no similarity.
    Bucketing is most of the cost of a call: a page compared with many others can be bucketed
    once (:func:`bucketed`) and compared with ``bucket_base=None`` (the result is the same).
    """
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    if bucket_base is not None:
        a, b = bucketed(a, bucket_base), bucketed(b, bucket_base)
    else:
        # rapidfuzz reads an array("i") as unsigned and refuses the negative type codes.
        a, b = list(a), list(b)
    return Levenshtein.distance(a, b) / longest


# rapidfuzz compares two str fastest: a bucketed entry becomes one character, offset so the
# negative type codes are characters too (distinct values stay distinct characters).
_CHAR_OFFSET = 0x100


class FingerprintShape:
    """What the comparison of a page's fingerprint with others needs, computed once a page: its
    paragraph count and its bucketed entries as a string.  :func:`shape_distance_ratio` of two
    shapes is :func:`fingerprint_distance_ratio` of the two fingerprints with that
    ``bucket_base`` (bucketed only: exact lengths have no bound a character could hold)."""

    __slots__ = ("paragraphs", "_buckets")

    def __init__(self, fp: Sequence[int], bucket_base: float | None = DEFAULT_BUCKET_BASE) -> None:
        if bucket_base is None:
            raise ValueError("a fingerprint shape needs a bucket base")
        self.paragraphs = paragraph_count(fp)
        self._buckets = "".join(chr(x + _CHAR_OFFSET) for x in bucketed(fp, bucket_base))

    def __len__(self) -> int:
        return len(self._buckets)


def shape_distance_ratio(a: FingerprintShape, b: FingerprintShape) -> float:
    """:func:`fingerprint_distance_ratio` of the fingerprints of two shapes made with one base."""
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    return Levenshtein.distance(a._buckets, b._buckets) / longest


def fingerprint_features(
    a: Sequence[int], b: Sequence[int], bucket_base: float | None = DEFAULT_BUCKET_BASE
) -> tuple[float, float, float]:
    """Section 3.9's 3-vector: fingerprint length ratio, paragraph count ratio, distance ratio.

    The ratios are min/max (1 = equal); the distance ratio is 0 for identical structure.
    """
    return (
        ratio(len(a), len(b)),
        ratio(paragraph_count(a), paragraph_count(b)),
        fingerprint_distance_ratio(a, b, bucket_base),
    )
