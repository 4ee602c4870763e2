"""The dictionary filter's judgments (PCB): a bilingual dictionary's bag-of-words translation
scores of candidate pairs (matchers.content.dictionary_filter), as pages arrive and when the crawl
closes.

Tsvetkov & Wintner, section 3.2.2.  Candidates of the dictionary's language pair keep their place
when both bag-of-words scores pass (``BITEXT_DICTIONARY_THRESHOLD_1`` for the dictionary's first
language, ``_2`` for its second), or when a trained translation model aligns them
(``content_share`` at least ``aligned_share`` at maturity 1; until a trained model has judged a
candidate it is kept, and judged at close with the final model): a dictionary's coverage of a
language pair varies (an inflected language's scores sit lower), and a pair whose sentences align
is evidence it cannot outvote.  Each side's score is stored as ``dictionary_<lang>`` and the
verdict as ``dictionary`` (1 both pass, 0 not), which the decision weighs.
When the crawl closes, the candidates found after arrival (the content filter's close sweep) are
judged too, and a page with more than one counterpart the dictionary accepts in that language
pair is dropped with all its candidates (PCB's policy; ``BITEXT_DICTIONARY_DROP_AMBIGUOUS=False`` keeps
them for the one-to-one resolution instead).  Other language pairs pass through untouched.

Plain data in, decisions out: the crawl's pipeline hands each page's candidates to
:func:`judge_candidates`, bitext_spider.resolution the site's stored candidates to
:func:`close_judgments` and deletes what it returns.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from matchers.content.content_filter import StoredPair
from matchers.content.dictionary_filter import (
    BilingualDictionary,
    bag_of_words,
    drop_ambiguous,
    scores_from_translations,
    stopwords,
    translate_bag,
)
from matchers.page.page_content import PageContent
from matchers.score_names import dictionary_score
from matchers.site.page_index import CandidateSet, SiteIndex

_Translated = tuple[dict[str, frozenset[str]], frozenset[str]]


class DictionaryFilter:
    """PCB scores of candidate pairs, with each page's translated bag computed once (LRU)."""

    def __init__(self, dic: BilingualDictionary, t1: float, t2: float, cache_pages: int = 4096) -> None:
        self.dic = dic
        self.t1, self.t2 = t1, t2
        self._stop: dict[str, frozenset[str]] = {}
        self._cache: OrderedDict[int, _Translated] = OrderedDict()
        self._cache_pages = cache_pages

    def covers(self, lang_a: str, lang_b: str) -> bool:
        return self.dic.covers(lang_a, lang_b)

    def translated(self, content: PageContent) -> _Translated:
        key = content.uid
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        stop = self._stop.get(content.lang)
        if stop is None:
            stop = self._stop[content.lang] = stopwords(content.lang)
        bag = bag_of_words(content.words, stop)
        result = translate_bag(bag, self.dic, content.lang)
        self._cache[key] = result
        if len(self._cache) > self._cache_pages:
            self._cache.popitem(last=False)
        return result

    def scores(self, a: PageContent, b: PageContent) -> tuple[float, float]:
        """``(score of a's side, score of b's side)``."""
        return scores_from_translations(self.translated(a), self.translated(b))

    def accept(self, a: PageContent, scores: tuple[float, float]) -> bool:
        first_is_a = self.dic.side(a.lang) == 0
        t_a, t_b = (self.t1, self.t2) if first_is_a else (self.t2, self.t1)
        return scores[0] > t_a and scores[1] > t_b


def _aligned(scores: dict[str, object], aligned_share: float, undecided: bool = False) -> bool:
    """Whether a trained model aligns the pair (or, with ``undecided``, no trained model has
    judged it yet: a young model's share is judged again at close)."""
    share, ripe = scores.get("content_share"), scores.get("content_maturity")
    if not isinstance(ripe, (int, float)) or ripe != ripe or ripe < 1.0:
        return undecided and isinstance(share, (int, float)) and share == share
    return isinstance(share, (int, float)) and share >= aligned_share


def judge_candidates(
    dfilter: DictionaryFilter, lang: str, content: PageContent, candidates: list[CandidateSet], index: SiteIndex,
    aligned_share: float = 1.01,
) -> tuple[int, int]:
    """Score a new page's candidates of the dictionary's language pair against the page (in
    ``lang``), store both sides' scores and the verdict on them and narrow each set to those
    accepted or aligned (module docstring).  Returns how many candidates were checked and how
    many rejected."""
    checked = rejected = 0
    for cand in candidates:
        if not dfilter.covers(lang, cand.lang):
            continue
        contents = index.index(cand.lang).content
        own = np.full(len(cand), np.nan)
        other = np.full(len(cand), np.nan)
        verdict = np.full(len(cand), np.nan)
        keep = np.ones(len(cand), dtype=bool)
        share = cand.scores.get("content_share", np.full(len(cand), np.nan))
        ripe = cand.scores.get("content_maturity", np.zeros(len(cand)))
        for k, row in enumerate(cand.rows.tolist()):
            them = contents[row]
            if them is None:
                continue
            s = dfilter.scores(content, them)
            own[k], other[k] = s
            verdict[k] = float(dfilter.accept(content, s))
            keep[k] = bool(verdict[k]) or _aligned({"content_share": float(share[k]), "content_maturity":
                                                    float(ripe[k])}, aligned_share, undecided=True)
        cand.add_scores(**{dictionary_score(lang): own, dictionary_score(cand.lang): other, "dictionary": verdict})
        checked += len(cand)
        rejected += int((~keep).sum())
        cand.narrow(keep)
    return checked, rejected


@dataclass
class CloseJudgments:
    """What :func:`close_judgments` decided: the candidates to delete, and why."""

    rejected: list[int] = field(default_factory=list)  # found after arrival, turned down
    # Found after arrival and kept: (id, ranking score, scores with the dictionary's added).
    scored: list[tuple[int, float, dict[str, Any]]] = field(default_factory=list)
    ambiguous: list[int] = field(default_factory=list)  # of pages with more than one counterpart

    @property
    def doomed(self) -> list[int]:
        return self.rejected + self.ambiguous


def close_judgments(
    dfilter: DictionaryFilter, candidates: Iterable[StoredPair], content: Callable[[str], PageContent | None],
    drop_ambiguous_pages: bool, aligned_share: float = 1.01,
) -> CloseJudgments:
    """At close: judge the site's stored candidates found after arrival (the content filter's
    sweep; ``content`` gives a page's main content by URL), then, if ``drop_ambiguous_pages``,
    apply PCB's policy to the pages with more than one accepted counterpart."""
    out = CloseJudgments()
    groups: dict[tuple[str, str], list[tuple[int, str, str]]] = {}
    for c in candidates:
        if not dfilter.covers(c.lang1, c.lang2):
            continue
        if dictionary_score(c.lang1) not in c.scores:
            a, b = content(c.url1), content(c.url2)
            if a is None or b is None:
                continue
            s = dfilter.scores(a, b)
            passed = dfilter.accept(a, s)
            scores = dict(c.scores, **{dictionary_score(c.lang1): round(s[0], 6),
                                       dictionary_score(c.lang2): round(s[1], 6), "dictionary": float(passed)})
            if passed or _aligned(c.scores, aligned_share):
                out.scored.append((c.id, float(scores.get("score", 0.0)), scores))
        else:
            # Judged at arrival; a database from before the verdict was stored kept passing ones only.
            passed = c.scores.get("dictionary", 1.0) == 1.0
        if not passed:
            # Kept at arrival while no trained model had judged it, or kept because its content
            # aligns: now the final model's judgment (matchers.content.content_filter) decides.
            if not _aligned(c.scores, aligned_share):
                out.rejected.append(c.id)
            continue  # not one of PCB's accepted counterparts
        # Oriented by language so each page is on one side whichever arrived first.
        urls = (c.url1, c.url2) if c.lang1 <= c.lang2 else (c.url2, c.url1)
        langs = (c.lang1, c.lang2) if c.lang1 <= c.lang2 else (c.lang2, c.lang1)
        groups.setdefault(langs, []).append((c.id, *urls))
    if drop_ambiguous_pages:
        for cands in groups.values():
            _kept, dropped = drop_ambiguous((a, b) for _id, a, b in cands)
            out.ambiguous.extend(i for i, a, b in cands if a in dropped or b in dropped)
    return out
