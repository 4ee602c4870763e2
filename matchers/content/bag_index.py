"""Candidates on content alone: a site's pages indexed by their bags of words, queried with a
page's bag translated into the other language.

Buck and Koehn, *Quick and Reliable Document Alignment via TF/IDF-weighted Cosine Distance*
(WMT 2016): a page's text is brought into the other language and compared with that language's
pages by TF/IDF-weighted cosine; the best scores, resolved one-to-one, find most translations
without looking at URLs or markup.  Tsvetkov and Wintner, *PCB* (section 3.2.2), pair newspaper
editions with a bilingual dictionary and compare only articles published close in time.  Here:

* A page's terms are its main-content words, case-folded, less stop words and one-letter words
  (the dictionary filter's bag, matchers.content.dictionary_filter), with their counts; tokens
  with a digit stay: numbers, dates and codes are the same in both languages.
* The query is the page's terms translated word by word: every translation a dictionary gives
  (``translate``), each weighing ``1 / n`` of the word's count, plus the word itself, for names,
  numbers and words spelt alike.  Without a dictionary the words themselves are the query.
* Weights ``(1 + log tf) * idf``, ``idf = log(1 + N / df)`` (never 0, so a site of a few pages
  still compares) with the other language's document frequencies at query time;
  an indexed page's vector is normalized by its own ``1 + log tf`` norm, which does not move as
  the site grows (a page's full TF/IDF norm would need re-computing at every page).  Terms on more
  than half the other language's pages (idf under ``log 3``) are skipped once it has 20 pages: they
  weigh little and their postings are the long ones.
* Blocking (PCB): pages whose publication days are both known and further apart than ``window``
  days are not compared, nor pages whose main-content lengths differ by more than
  ``max_length_diff`` (relative); a page without a date is compared with every date.
* Postings are ``array`` columns of rows and weights, so 10,000 pages of 300 distinct terms cost
  about 25 MB, and a query touches only the postings of its own terms.
"""

from __future__ import annotations

import math
import os
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numba
import numpy as np

from matchers.content.dictionary_filter import stopwords
from matchers.page.page_content import PageContent

# The terms of one word of the other language, each with its share of the word's count.
Translate = Callable[[str], Iterable[tuple[str, float]]]

# Terms on more than this share of a language's pages are not looked up, once it has this many.
MAX_DF_SHARE = 0.5
MIN_PAGES_DF_CAP = 20
# Pages whose terms a query keeps: the close sweep queries one page for each language it lacks a
# candidate in, and the mutual-best check queries its best page back, so a page's terms are
# wanted several times in a row.
TERMS_CACHE = 32

_CACHE = os.path.isfile(__file__)


def page_terms(content: PageContent, stop: frozenset[str]) -> Counter[str]:
    """A page's terms and their counts (module docstring)."""
    if not len(content.ids):
        return Counter()
    # A page's words are distinct (matchers.content.token_ids): one pass builds the dictionary.
    counts = np.bincount(content.ids, minlength=len(content.words)).tolist()
    return Counter({word: n for word, n in zip(content.words, counts, strict=False)
                    if n and (len(word) > 1 or word.isdigit()) and word not in stop})


def translated_terms(terms: Counter[str], translate: Translate | None) -> dict[str, float]:
    """``terms`` in the other language: each word's translations share its count, and the word
    itself keeps it (names, numbers and cognates are spelt alike)."""
    out: dict[str, float] = {}
    for word, n in terms.items():
        out[word] = out.get(word, 0.0) + n
        if translate is not None:
            for term, share in translate(word):
                if term != word:
                    out[term] = out.get(term, 0.0) + n * share
    return out


@dataclass
class _Language:
    """The bags of one language's pages; rows are the site index's rows of that language."""

    postings: dict[str, tuple[array, array]] = field(default_factory=dict)  # term -> (rows, 1 + log tf)
    norms: array = field(default_factory=lambda: array("f"))
    days: array = field(default_factory=lambda: array("i"))  # publication day ordinal, -1 unknown
    lengths: array = field(default_factory=lambda: array("q"))


@dataclass
class BagMatch:
    """A query's best pages of the other language: rows (best first) and their cosines."""

    rows: np.ndarray
    cosines: np.ndarray


class BagIndex:
    """Every page of a site with main content, by language, for :meth:`query`."""

    def __init__(self) -> None:
        self._langs: dict[str, _Language] = {}
        self._stop: dict[str, frozenset[str]] = {}
        # Pages are added by the crawl's thread while the content thread queries: a query reads
        # the postings through numpy views, which an append must not resize under it.
        self._lock = threading.Lock()
        self._terms: OrderedDict[int, Counter[str]] = OrderedDict()  # by PageContent.uid
        self._terms_lock = threading.Lock()

    def stop_words(self, lang: str) -> frozenset[str]:
        stop = self._stop.get(lang)
        if stop is None:
            stop = self._stop[lang] = stopwords(lang)
        return stop

    def terms(self, content: PageContent) -> Counter[str]:
        return page_terms(content, self.stop_words(content.lang))

    def _query_terms(self, content: PageContent) -> Counter[str]:
        """:meth:`terms`, from the cache of recent queries when there (shared: not to be changed)."""
        key = content.uid
        with self._terms_lock:
            hit = self._terms.get(key)
            if hit is not None:
                self._terms.move_to_end(key)
                return hit
        terms = self.terms(content)
        with self._terms_lock:
            self._terms[key] = terms
            while len(self._terms) > TERMS_CACHE:
                self._terms.popitem(last=False)
        return terms

    def __len__(self) -> int:
        return sum(len(lang.norms) for lang in self._langs.values())

    def size(self, lang: str) -> int:
        bags = self._langs.get(lang)
        return len(bags.norms) if bags is not None else 0

    def add(self, lang: str, row: int, content: PageContent | None, day: int | None = None) -> None:
        """Index the page at ``row`` of ``lang`` (rows arrive in order; a page without content
        gets an empty bag, so rows stay aligned with the site index)."""
        terms = self.terms(content) if content is not None else Counter()
        with self._lock:
            self._add(lang, row, terms, content.length if content is not None else 0, day)

    def _add(self, lang: str, row: int, terms: Counter[str], length: int, day: int | None) -> None:
        bags = self._langs.setdefault(lang, _Language())
        while len(bags.norms) < row:  # rows the caller never gave (no content): empty bags
            bags.norms.append(0.0)
            bags.days.append(-1)
            bags.lengths.append(0)
        if len(bags.norms) > row:
            return  # already indexed (a resumed crawl reading a page again)
        norm = 0.0
        for term, n in terms.items():
            w = 1.0 + math.log(n)
            norm += w * w
            posting = bags.postings.get(term)
            if posting is None:
                posting = bags.postings[term] = (array("i"), array("f"))
            posting[0].append(row)
            posting[1].append(w)
        bags.norms.append(math.sqrt(norm))
        bags.days.append(-1 if day is None else int(day))
        bags.lengths.append(length)

    def query(
        self, content: PageContent, other_lang: str, *, translate: Translate | None = None, k: int = 3,
        day: int | None = None, window: int = 0, max_length_diff: float = 1.0,
        exclude: np.ndarray | None = None, limit: int | None = None,
    ) -> BagMatch:
        """The ``k`` pages of ``other_lang`` most similar to ``content`` (cosine > 0), after the
        date and length blocking; rows where the boolean mask ``exclude`` is true are left out
        (rows past its end are not), and so are rows from ``limit`` on: only rows below it are
        compared (the pages that had arrived when a page did)."""
        terms = self._query_terms(content)
        # Without a translation the words are the query as they are (shared: read only).
        query: dict[str, float] | Counter[str] = terms if translate is None else translated_terms(terms, translate)
        empty = BagMatch(np.zeros(0, np.int64), np.zeros(0))
        if k <= 0:
            return empty
        use_days, use_lengths = day is not None and window > 0, max_length_diff < 1.0
        # The postings and the columns the blocking reads are copied under the lock; the sums run
        # outside it, so the crawl's thread adding a page never waits for them.
        with self._lock:
            found = self._postings(query, other_lang)
            if found is None:
                return empty
            bags = self._langs[other_lang]
            norms = bytes(bags.norms)
            days = bytes(bags.days) if use_days else b""
            lengths = bytes(bags.lengths) if use_lengths else b""
        rows, weights, factors, counts, qnorm = found
        top, cosines = _best_rows(
            rows, weights, factors, counts, np.frombuffer(norms, dtype=np.float32), math.sqrt(qnorm),
            use_days, np.frombuffer(days, dtype=np.int32), day or 0, window,
            use_lengths, np.frombuffer(lengths, dtype=np.int64), float(content.length), max_length_diff,
            -1 if limit is None else max(0, limit),
            exclude if exclude is not None else np.zeros(0, dtype=bool), k,
        )
        return BagMatch(top, cosines) if len(top) else empty

    def _postings(
        self, query: dict[str, float] | Counter[str], other_lang: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float] | None:
        """The query terms' postings joined (rows, weights), each term's factor and posting
        length, and the query's squared norm; None when no term counts."""
        bags = self._langs.get(other_lang)
        if bags is None or not len(bags.norms):
            return None
        n_pages = len(bags.norms)
        qnorm = 0.0
        # The matching terms' postings are joined and summed in one kernel: a numpy call per term
        # cost more than the sums themselves (a page has hundreds of terms).
        row_parts: list[array] = []
        weight_parts: list[array] = []
        factors: list[float] = []
        counts: list[int] = []
        postings = bags.postings
        capped = n_pages >= MIN_PAGES_DF_CAP
        for term, tf in query.items():
            posting = postings.get(term)
            if posting is None:
                continue
            df = len(posting[0])
            if capped and df > MAX_DF_SHARE * n_pages:
                continue
            idf = math.log(1.0 + n_pages / df)
            wq = (1.0 + math.log(tf)) * idf if tf >= 1.0 else tf * idf
            qnorm += wq * wq
            row_parts.append(posting[0])
            weight_parts.append(posting[1])
            factors.append(wq * idf)
            counts.append(df)
        if qnorm <= 0.0:
            return None
        return (
            np.frombuffer(b"".join(row_parts), dtype=np.int32),
            np.frombuffer(b"".join(weight_parts), dtype=np.float32),
            np.array(factors), np.array(counts, dtype=np.int64), qnorm,
        )

    def lengths(self, lang: str) -> np.ndarray:
        """Main-content length of each indexed page of ``lang`` (0 for a page without a bag)."""
        bags = self._langs.get(lang)
        with self._lock:
            return np.array(bags.lengths, dtype=np.int64) if bags is not None else np.zeros(0, np.int64)

    def days(self, lang: str) -> np.ndarray:
        """Publication day of each indexed page of ``lang`` (-1 for a page without one)."""
        bags = self._langs.get(lang)
        with self._lock:
            return np.array(bags.days, dtype=np.int64) if bags is not None else np.zeros(0, np.int64)

    def day(self, lang: str, row: int) -> int | None:
        bags = self._langs.get(lang)
        if bags is None or row >= len(bags.days) or bags.days[row] < 0:
            return None
        return int(bags.days[row])


@numba.njit(nogil=True, cache=_CACHE)
def _best_rows(
    rows_all, weights_all, factors, counts, norms, qscale, use_days, days, day, window, use_lengths, lengths, own,
    max_length_diff, limit, exclude, k,
):  # pragma: no cover - compiled
    """The ``k`` rows of highest cosine (ties in row order) and their cosines, of the postings'
    ``rows_all`` with weights ``weights_all``, each run of ``counts[i]`` of them scaled by
    ``factors[i]``, after the blocking of :meth:`BagIndex.query` (``limit`` -1: none).

    One call that lets the GIL go once: as numpy operations over every page of the language, a
    query in the content thread let it go, and waited to have it back beside the busy reactor,
    a dozen times.  The sums run in the postings' order, as ``np.bincount`` does."""
    n = norms.shape[0]
    scores = np.zeros(n)
    pos = 0
    for i in range(counts.shape[0]):
        f = factors[i]
        for j in range(pos, pos + counts[i]):
            r = rows_all[j]
            if r < n:
                scores[r] += np.float64(weights_all[j]) * f
        pos += counts[i]
    cos = np.zeros(n)
    ok = np.zeros(n, np.bool_)
    for r in range(n):
        if norms[r] > 0:
            cos[r] = scores[r] / (np.float64(norms[r]) * qscale)
        keep = cos[r] > 0
        if keep and use_days and days[r] >= 0:
            keep = abs(np.int64(days[r]) - day) <= window
        if keep and use_lengths:
            other = np.float64(lengths[r])
            keep = abs(other - own) <= max_length_diff * max(max(other, own), 1.0)
        if keep and 0 <= limit <= r:
            keep = False
        if keep and r < exclude.shape[0] and exclude[r]:
            keep = False
        ok[r] = keep
    rows = np.flatnonzero(ok)
    top = rows[np.argsort(-cos[rows], kind="mergesort")[:k]]
    return top.astype(np.int64), cos[top]


def dictionary_translate(table: Callable[[str], Iterable[str]]) -> Translate:
    """A :data:`Translate` from a dictionary look-up (every translation weighs alike)."""

    def translate(word: str) -> list[tuple[str, float]]:
        found = list(table(word))
        return [(t, 1.0 / len(found)) for t in found]

    return translate
