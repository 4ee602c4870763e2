"""The dictionary filter (PCB), on when ``BITEXT_DICTIONARY`` names a Bitextor-format file
(matchers.content.dictionary_filter).

Tsvetkov & Wintner, section 3.2.2.  Candidates of the dictionary's language pair keep their place
only when both bag-of-words scores pass (``BITEXT_DICTIONARY_THRESHOLD_1`` for the dictionary's
first language, ``_2`` for its second); each side's score is stored as ``dictionary_<lang>``.
When the crawl closes, the candidates found after arrival (the content filter's close sweep) are
judged too, and a page with more than one accepted counterpart in that language pair is
dropped with all its candidates (PCB's policy; ``BITEXT_DICTIONARY_DROP_AMBIGUOUS=False`` keeps
them for the one-to-one resolution instead).  Other language pairs pass through untouched.
"""


from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING

from bitext_spider.config import BitextConfig
from matchers.content.dictionary_filter import (
    BilingualDictionary,
    DictionaryError,
    bag_of_words,
    load_dictionary,
    scores_from_translations,
    stopwords,
    translate_bag,
)
from matchers.page.page_content import PageContent

if TYPE_CHECKING:
    from bitext_spider.runtime import BitextRuntime, SiteState

logger = logging.getLogger(__name__)

_Translated = tuple[dict[str, frozenset[str]], frozenset[str]]


class DictionaryConfigError(RuntimeError):
    """The dictionary named by BITEXT_DICTIONARY cannot be used (the crawl does not start)."""


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
        key = id(content)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        stop = self._stop.get(content.lang)
        if stop is None:
            stop = self._stop[content.lang] = stopwords(content.lang)
        bag = bag_of_words((t for sent in content.tokens for t in sent), stop)
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


def load_filter(config: BitextConfig) -> DictionaryFilter:
    """The filter of ``BITEXT_DICTIONARY``; DictionaryConfigError (logged) if it cannot be used."""
    try:
        dic = load_dictionary(config.dictionary)
    except DictionaryError as exc:
        logger.error("BITEXT_DICTIONARY: %s", exc)
        raise DictionaryConfigError(str(exc)) from exc
    logger.info(
        "dictionary %s: %s-%s, %d word pairs (%d malformed lines skipped)",
        config.dictionary, dic.lang1, dic.lang2, len(dic), len(dic.skipped),
    )
    return DictionaryFilter(dic, config.dictionary_threshold_1, config.dictionary_threshold_2)


def close_site(dfilter: DictionaryFilter, runtime: BitextRuntime, state: SiteState) -> None:
    """At close: judge the candidates found after arrival (the content filter's sweep), then
    apply PCB's policy to ambiguous pages if it is on."""
    from matchers.content.dictionary_filter import drop_ambiguous

    store = runtime.store
    stats = runtime.stats
    groups: dict[tuple[str, str], list[tuple[int, str, str]]] = {}
    doomed: list[int] = []
    for c in store.site_candidates(state.site_id):
        if not dfilter.covers(c.lang1, c.lang2):
            continue
        if f"dictionary_{c.lang1}" not in c.scores:
            a, b = state.index.content(c.url1), state.index.content(c.url2)
            if a is None or b is None:
                continue
            if not dfilter.accept(a, dfilter.scores(a, b)):
                doomed.append(c.id)
                stats.inc_value("bitext/dictionary/rejected")
                continue
        # Oriented by language so each page is on one side whichever arrived first.
        urls = (c.url1, c.url2) if c.lang1 <= c.lang2 else (c.url2, c.url1)
        groups.setdefault(tuple(sorted((c.lang1, c.lang2))), []).append((c.id, *urls))  # type: ignore[arg-type]
    ambiguous = 0
    if runtime.config.dictionary_drop_ambiguous:
        for cands in groups.values():
            _kept, dropped = drop_ambiguous((a, b) for _id, a, b in cands)
            gone = [i for i, a, b in cands if a in dropped or b in dropped]
            ambiguous += len(gone)
            doomed.extend(gone)
        stats.inc_value("bitext/dictionary/dropped_ambiguous", ambiguous)
    if doomed:
        store.delete_candidates(doomed)
        logger.info("site %s: dictionary filter dropped %d candidates (%d of ambiguous pages)",
                    state.key, len(doomed), ambiguous)
