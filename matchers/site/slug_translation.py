"""Translated URL slugs: /community/political and /communautaire/politique name the same page in
two languages, and no URL pairing key can see it (Kit & Ng's keys need the URLs to share all but
one token; section 5 of their paper leaves what the keys miss to other evidence).  The words the
two URLs do not share are translated with the language pair's translation model (the site's own
IBM-1 model) or a bilingual dictionary when one is given, and the share of them that find their
translation in the other URL is one more piece of evidence for the decision.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from urllib.parse import unquote, urlsplit

import numpy as np

from matchers.content.translation_model import TranslationModel

_TOKEN = re.compile(r"[^\W_]+")
# File-name parts that are no words of the page's language.
_NOT_SLUG = frozenset({"html", "htm", "shtml", "php", "asp", "aspx", "jsp", "cfm", "index", "default", "www"})
MIN_PROBABILITY = 0.1  # t(w2 | w1) or t(w1 | w2) at which a slug word counts as translated
MIN_PREFIX = 5  # a dictionary translation matches a slug word sharing this many first letters

Translate = Callable[[Sequence[str], Sequence[str]], list[list[bool]]]


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def slug_words(url: str) -> tuple[str, ...]:
    """Words of a URL's path, case-folded, in order: its tokens of 3 or more letters and no digit
    (a token with a digit is an id, a date or a hash, never a translated word)."""
    path = unquote(urlsplit(url).path)
    words = (unicodedata.normalize("NFKC", t).casefold() for t in _TOKEN.findall(path))
    return tuple(w for w in words if len(w) >= 3 and w.isalpha() and w not in _NOT_SLUG)


def unshared_words(words_a: Sequence[str], words_b: Sequence[str]) -> tuple[list[str], list[str]]:
    """The words of each URL's path that the other's does not have, sorted: what
    :func:`slug_score` translates."""
    set_a, set_b = set(words_a), set(words_b)
    return sorted(set_a - set_b), sorted(set_b - set_a)


def slug_score(
    url_a: str, url_b: str, translate: Translate, words: Callable[[str], tuple[str, ...]] = slug_words,
) -> float | None:
    """Share of the words of the two URLs' paths that are not in both and whose translation is
    among the other URL's such words; None when either URL has none (no translated slug).
    ``words``: :func:`slug_words`, or a caller's memo of it (a page has several candidates)."""
    only_a, only_b = unshared_words(words(url_a), words(url_b))
    if not only_a or not only_b:
        return None
    hits = translate(only_a, only_b)
    found_a = sum(any(row) for row in hits)
    found_b = sum(any(hits[i][j] for i in range(len(only_a))) for j in range(len(only_b)))
    return (found_a + found_b) / (len(only_a) + len(only_b))


# Most cells of one language pair's table of all its slug words (:meth:`ModelTranslate.prepare`):
# 2,000 words a side, 32 MB of float32 while it is built; larger vocabularies are looked up
# candidate by candidate.
MAX_TABLE_CELLS = 4_000_000


class ModelTranslate:
    """Translation by the site's model (``model_translate``): a word pair counts when either
    direction's probability reaches ``min_probability``.  Each word pair is looked up once (the
    model must not change meanwhile): a site's slugs repeat their words from candidate to
    candidate.  :meth:`prepare` looks up all of a language pair's slug words in one table, instead
    of a small table per candidate (a lexicon and a kernel call each)."""

    def __init__(self, model: TranslationModel, min_probability: float = MIN_PROBABILITY) -> None:
        self.model = model
        self.min_probability = min_probability
        self._known: dict[tuple[str, str], bool] = {}
        self._rows: dict[str, int] = {}
        self._cols: dict[str, int] = {}
        self._hits: np.ndarray = np.zeros((0, 0), dtype=bool)

    def _lookup(self, words1: Sequence[str], words2: Sequence[str]) -> np.ndarray:
        tables = self.model.local_tables(words1, words2)
        p = self.min_probability
        return (tables.t21[1:, 1:] >= p) | (tables.t12[1:, 1:] >= p)

    def prepare(self, words1: Sequence[str], words2: Sequence[str]) -> bool:
        """Look up every pair of ``words1`` and ``words2`` at once, when the table stays under
        ``MAX_TABLE_CELLS``; whether it did.  A cell depends only on its two words and the model
        (an identical word's identity link is in its own cell), so each pair gets the answer a
        lookup of that pair alone gives."""
        words1, words2 = list(dict.fromkeys(words1)), list(dict.fromkeys(words2))
        if not words1 or not words2 or len(words1) * len(words2) > MAX_TABLE_CELLS:
            return False
        self._hits = self._lookup(words1, words2)
        self._rows = {w: i for i, w in enumerate(words1)}
        self._cols = {w: j for j, w in enumerate(words2)}
        return True

    def __call__(self, words1: Sequence[str], words2: Sequence[str]) -> list[list[bool]]:
        rows, cols = self._rows, self._cols
        if all(w in rows for w in words1) and all(v in cols for v in words2):
            cell = self._hits.item
            return [[cell(rows[w], cols[v]) for v in words2] for w in words1]
        known = self._known
        todo = [w for w in words1 if any((w, v) not in known for v in words2)]
        if todo:
            hits = self._lookup(todo, words2).tolist()
            for w, row in zip(todo, hits, strict=True):
                known.update(((w, v), hit) for v, hit in zip(words2, row, strict=True))
        return [[known[(w, v)] for v in words2] for w in words1]


def model_translate(model: TranslationModel, min_probability: float = MIN_PROBABILITY) -> ModelTranslate:
    """A :data:`Translate` by the site's model (:class:`ModelTranslate`)."""
    return ModelTranslate(model, min_probability)


def dictionary_translate(translations: Callable[[str], frozenset[str]], fallback: Translate | None = None) -> Translate:
    """Translation by a bilingual dictionary (``translations(word)`` of the first language's
    words); a translation matches a slug word equal to it or sharing its first ``MIN_PREFIX``
    letters (inflection: "dental" / "dentaire" do not, "prestation" / "prestations" do), accents
    aside (URLs often drop them: "impots" for "impôts").  Pairs the dictionary does not know are
    left to ``fallback``."""

    def translate(words1: Sequence[str], words2: Sequence[str]) -> list[list[bool]]:
        out = fallback(words1, words2) if fallback is not None else [[False] * len(words2) for _ in words1]
        folded2 = [_fold(w) for w in words2]
        for i, w1 in enumerate(words1):
            for t in translations(w1):
                t = _fold(t)
                for j, w2 in enumerate(folded2):
                    if t == w2 or (len(t) >= MIN_PREFIX and len(w2) >= MIN_PREFIX and t[:MIN_PREFIX] == w2[:MIN_PREFIX]):
                        out[i][j] = True
        return out

    return translate
