"""Which pages a page is compared with on content alone, when no other filter proposed one.

Pages made with different templates (two newspaper editions, a translation published with another
layout) never pass the structure filter, so their candidates must come from content (Tsvetkov and
Wintner, *PCB*, section 3.2.2; Buck and Koehn, WMT 2016): the pages of the other language whose
bags of words are closest to the page's translated bag (matchers.content.bag_index), published
within ``window`` days of it and of comparable main-content length.  A candidate is *mutual* when
the page is also the candidate's closest page of its language: Buck and Koehn resolve the cosine
scores one-to-one, and a mutual best is what that resolution keeps; it is the evidence that lets a
pair be found before the translation model has learnt anything.  When the bags give fewer than
``k`` pages, the pages closest in main-content length fill the rest (WebMining's second chance,
section 2.3, within the window too): without a dictionary two languages may share no word at all,
and a language without word separators has no multi-letter words, while a trained model still
aligns their sentences.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from matchers.content.bag_index import Translate, dictionary_translate
from matchers.content.content_match import length_difference
from matchers.content.dictionary_filter import BilingualDictionary
from matchers.page.page_content import PageContent
from matchers.site.page_index import SiteIndex

# A best counts towards a mutual best only this far ahead of the second best (the ratio margin of
# Artetxe & Schwenk 2019 for mining parallel sentences: a best among near-equals is chance).  On
# the newspaper-edition site the true partner ranked first leads the second by 1.7-3.4 (median
# 3.0-3.4) with the en-de dictionary and by 1.0-3.3 without one, while pages whose first is
# not their translation (their translation absent) lead by 1.0-1.4 for most; without vocabulary in
# common (Arabic and German without a dictionary) the bags' first is often such a near-tie.
MUTUAL_MARGIN = 1.2


@dataclass
class ContentCandidate:
    row: int  # in the other language's index
    cosine: float  # NaN: found by length, not by words
    mutual: bool


class ContentCandidates:
    """Finds a page's candidates on content alone (module docstring)."""

    def __init__(
        self, dictionary: BilingualDictionary | None = None, *, window: int = 31, max_length_diff: float = 0.4,
    ) -> None:
        self.dictionary = dictionary
        self.window = window
        self.max_length_diff = max_length_diff
        self._translators: dict[tuple[str, str], Translate | None] = {}
        # Reverse queries of the mutual checks, kept while the index holds still (index_fixed).
        self._backs: dict[tuple[str, int, str, int | None], tuple[int, bool]] | None = None

    @contextlib.contextmanager
    def index_fixed(self) -> Iterator[None]:
        """Within the block the site's index does not change (the close's sweep), so each mutual
        check's reverse query is made once: many pages of a language share their best page in
        another language, and every one of them asked that page's own best again."""
        self._backs = {}
        try:
            yield
        finally:
            self._backs = None

    def translator(self, from_lang: str, to_lang: str) -> Translate | None:
        key = (from_lang, to_lang)
        if key not in self._translators:
            dic = self.dictionary
            self._translators[key] = (
                dictionary_translate(lambda w, lang=from_lang: dic.translate_word(w, lang))
                if dic is not None and dic.covers(from_lang, to_lang) else None
            )
        return self._translators[key]

    def find(
        self, index: SiteIndex, content: PageContent, day: int | None, lang: str, k: int,
        exclude: np.ndarray | None = None, visible: dict[str, int] | None = None, looked: list[int] | None = None,
    ) -> list[ContentCandidate]:
        """Up to ``k`` pages of ``lang`` for ``content`` (a page of ``index`` published on
        ``day``), best first; rows of ``lang`` where the boolean mask ``exclude`` is true are left
        out.  ``visible``: the rows per language that had arrived with the page (its own
        included); later pages are left out, so what a page is compared with as it arrives does
        not depend on how far the site's other pages have got through the pipelines meanwhile.
        ``looked`` gets every row the result depends on (the bags' best two and the rows filled
        in by length): both are chosen in a stable order, so excluding any other row leaves the
        result as it is."""
        bags = index.bags
        limit = None if visible is None else visible.get(lang, 0)
        found = bags.query(content, lang, translate=self.translator(content.lang, lang), k=max(k, 2), day=day,
                           window=self.window, max_length_diff=self.max_length_diff, exclude=exclude, limit=limit)
        rows, cosines = found.rows.tolist()[:k], found.cosines.tolist()
        # Only the page's own best can be a mutual best, and only by a margin.
        first = bool(rows) and _clear_best(cosines)
        own = None if visible is None else visible.get(content.lang, 0)
        out = [ContentCandidate(int(r), float(c), n == 0 and first and self._mutual(index, content, lang, int(r), own))
               for n, (r, c) in enumerate(zip(rows, cosines, strict=False))]
        # The rest by closeness in length, with the same blocking, as arrays: at close a site's
        # every unpaired page is searched, so a loop over the language's pages per search would
        # make the sweep quadratic in the site.
        lengths = bags.lengths(lang)  # a copy has no bag: length 0, never close
        diff = length_difference(content.length, lengths)
        ok = (diff <= self.max_length_diff) & (lengths > 0)
        if exclude is not None:
            n = min(len(exclude), len(ok))
            ok[:n] &= ~exclude[:n]
        if limit is not None:
            ok[max(0, limit):] = False
        if day is not None and self.window > 0:
            days = bags.days(lang)[:len(ok)]  # a page indexed since the lengths were read waits
            ok &= (days < 0) | (np.abs(days - day) <= self.window)
        ok[[c.row for c in out if c.row < len(ok)]] = False
        rows = np.flatnonzero(ok)
        rows = rows[np.argsort(diff[rows], kind="stable")[:max(0, k - len(out))]].tolist()
        if looked is not None:
            looked += found.rows.tolist()
            looked += rows
        return out + [ContentCandidate(r, float("nan"), False) for r in rows]

    def is_mutual(self, index: SiteIndex, url1: str, url2: str) -> bool | None:
        """Whether two pages of ``index`` are each other's closest translated bag of words now
        (None when either is not indexed with content)."""
        where1, where2 = index.locate(url1), index.locate(url2)
        if where1 is None or where2 is None:
            return None
        (lang1, row1), (lang2, row2) = where1, where2
        content1 = index.index(lang1).content[row1]
        if content1 is None or index.index(lang2).content[row2] is None:
            return None
        best = index.bags.query(content1, lang2, translate=self.translator(lang1, lang2), k=2,
                                day=index.bags.day(lang1, row1), window=self.window,
                                max_length_diff=self.max_length_diff)
        return (bool(len(best.rows)) and int(best.rows[0]) == row2 and _clear_best(best.cosines.tolist())
                and self._mutual(index, content1, lang2, row2))

    def _mutual(self, index: SiteIndex, content: PageContent, lang: str, row: int, limit: int | None = None) -> bool:
        """Whether ``content`` is the closest page of its language to page ``row`` of ``lang``
        (among its language's rows below ``limit``)."""
        other = index.index(lang).content[row]
        if other is None:
            return False
        key = (lang, row, content.lang, limit)
        got = self._backs.get(key) if self._backs is not None else None
        if got is None:
            back = index.bags.query(other, content.lang, translate=self.translator(lang, content.lang), k=2,
                                    day=index.bags.day(lang, row), window=self.window,
                                    max_length_diff=self.max_length_diff, limit=limit)
            got = (int(back.rows[0]) if len(back.rows) else -1, _clear_best(back.cosines.tolist()))
            if self._backs is not None:
                self._backs[key] = got
        best, clear = got
        if best < 0:
            return False
        closest = index.index(content.lang).content[best]
        return closest is not None and closest.uid == content.uid and clear


def _clear_best(cosines: list[float]) -> bool:
    """Whether the best is ahead of the second by ``MUTUAL_MARGIN`` (or has no rival)."""
    return len(cosines) < 2 or cosines[0] >= MUTUAL_MARGIN * cosines[1]
