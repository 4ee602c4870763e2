"""Content evidence for one candidate page pair: align the two pages' sentences with the language
pair's translation model and measure how much of the alignment is translation.

Tomás et al., *WebMining*, section 2.3: "Using this statistical model the best sentence alignment
that the model offers is obtained. Then, we compute the percentage of sentence pairs with a
translation probability higher than a threshold, to check if both pages are mutual translations."
The model's first language (``model.lang1``) is the first side of the alignment whichever page
arrived first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from matchers.content.sentence_align import Bead, align, content_scores
from matchers.content.training_pairs import TrainingPairs, training_pairs
from matchers.content.translation_model import TranslationModel
from matchers.page.lang_codes import primary_subtag
from matchers.page.page_content import PageContent


@dataclass
class ContentMatch:
    share: float  # share of beads whose translation probability passes the threshold
    mean: float  # mean bead probability
    good: int  # beads whose translation probability passes the threshold
    beads: list[Bead]
    first: PageContent  # the page in the model's first language
    second: PageContent

    def training_pairs(self, min_prob: float) -> TrainingPairs:
        return training_pairs(self.beads, self.first.encoded, self.second.encoded, min_prob)

    def sentence_pairs(self) -> list[tuple[str, str, float]]:
        """Aligned sentences with text on both sides, in the model's language order."""
        out = []
        s1, s2 = self.first.sentences, self.second.sentences
        sep1, sep2 = _separator(self.first), _separator(self.second)
        for bead in self.beads:
            if not bead.src or not bead.tgt:
                continue
            out.append((_join(sep1, s1, bead.src), _join(sep2, s2, bead.tgt), float(bead.prob)))
        return out

    def aligned(self) -> AlignedSentences:
        """The sentence pairs in a compact form, to be kept until the pair's sentences are stored."""
        rows = [(b.src[0], b.src[-1] + 1, b.tgt[0], b.tgt[-1] + 1, b.prob) for b in self.beads if b.src and b.tgt]
        return AlignedSentences(self.first, self.second, np.array(rows, dtype=np.float64).reshape(-1, 5))


@dataclass(slots=True)
class AlignedSentences:
    """A match's sentence pairs as rows ``(first from, first to, second from, second to, prob)``
    (a bead's sentences are consecutive): a few bytes a pair where the beads take hundreds."""

    first: PageContent
    second: PageContent
    rows: np.ndarray

    def starting_with(self, uid: int) -> AlignedSentences:
        """The same pairs with the page of content ``uid`` as the first side."""
        if self.first.uid == uid:
            return self
        return AlignedSentences(self.second, self.first, self.rows[:, [2, 3, 0, 1, 4]])

    def sentence_pairs(self, texts: dict[int, list[str]] | None = None) -> list[tuple[str, str, float]]:
        """As :meth:`ContentMatch.sentence_pairs` gives them.  ``texts`` keeps the pages' sentences
        by content uid across calls: a page aligned with several others (one in each language)
        has its packed sentences unpacked once, not once for each of them."""
        s1, s2 = _sentences(self.first, texts), _sentences(self.second, texts)
        sep1, sep2 = _separator(self.first), _separator(self.second)
        return [
            (_join(sep1, s1, range(int(a), int(b))), _join(sep2, s2, range(int(c), int(d))), p)
            for a, b, c, d, p in self.rows.tolist()
        ]


def _sentences(content: PageContent, texts: dict[int, list[str]] | None) -> list[str]:
    if texts is None:
        return content.sentences
    got = texts.get(content.uid)
    if got is None:
        got = texts[content.uid] = content.sentences
    return got


def _separator(content: PageContent) -> str:
    # Sentences of scripts written without spaces are joined without one.
    return "" if primary_subtag(content.lang) in ("zh", "ja", "th", "lo", "km", "my") else " "


def _join(sep: str, sentences: list[str], idx: Iterable[int]) -> str:
    return sep.join(sentences[i].strip() for i in idx)


def match_content(
    model: TranslationModel, a: PageContent, b: PageContent, threshold: float, min_sentences: int = 1
) -> ContentMatch | None:
    """Align ``a`` and ``b``; None when either has fewer than ``min_sentences`` sentences (no
    content evidence either way)."""
    if len(a) < max(1, min_sentences) or len(b) < max(1, min_sentences):
        return None
    first, second = (a, b) if _is_first(model, a.lang) else (b, a)
    beads = align(None, None, first.chars, second.chars, model, encoded=(first.encoded, second.encoded))
    share, mean = content_scores(beads, threshold)
    good = sum(1 for bead in beads if bead.prob > threshold)
    return ContentMatch(float(share), float(mean), good, beads, first, second)


def prefix_share(
    model: TranslationModel, a: PageContent, b: PageContent, threshold: float, sentences: int
) -> float | None:
    """The share :func:`match_content` would give, measured on the pages' openings only: the
    first ``sentences`` sentences of the page with fewer, and as large a part of the other.  A
    cheap first look at a pair that needs a high share, where most candidates are far from it
    (a translation's opening is a translation too).  None when a page has no more than twice
    ``sentences`` (the whole alignment is cheap there)."""
    n_a, n_b = len(a), len(b)
    if min(n_a, n_b) <= 2 * sentences:
        return None
    p_a, p_b = (sentences, round(sentences * n_b / n_a)) if n_a <= n_b else (round(sentences * n_a / n_b), sentences)
    if not _is_first(model, a.lang):
        (a, p_a), (b, p_b) = (b, p_b), (a, p_a)
    beads = align(None, None, a.chars[:p_a], b.chars[:p_b], model, encoded=(_opening(a, p_a), _opening(b, p_b)))
    return float(content_scores(beads, threshold)[0])


def _opening(content: PageContent, n: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    words, ids, off = content.encoded
    ids = ids[:off[n]]
    # The words up to the highest one the opening uses: the words are numbered as they first
    # appear, so these are the opening's own, and the aligner resolves and tabulates each word
    # it is given (the whole page's vocabulary made a few sentences' alignment cost a page's).
    return words[:int(ids.max()) + 1 if len(ids) else 0], ids, off[:n + 1]


def _is_first(model: TranslationModel, lang: str) -> bool:
    return lang == model.lang1


def length_difference(length: int, others: np.ndarray) -> np.ndarray:
    """Relative difference of main-content lengths (script-weighted characters)."""
    others = np.asarray(others, dtype=np.float64)
    top = np.maximum(np.maximum(others, float(length)), 1.0)
    return np.abs(others - float(length)) / top
