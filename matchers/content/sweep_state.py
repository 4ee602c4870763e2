"""The bookkeeping of the close sweep's passes (ContentFilter.sweep_site): which pages are taken
in which language, and which searches a pass must make again."""

from __future__ import annotations

import numpy as np

from matchers.site.page_index import SiteIndex


class SweepSearches:
    """Which searches of the close sweep a pass must make again.

    With the models final, a search whose result is the same finds nothing new (its pairs were
    checked), and its result changes only when a row it depends on is taken (excluded) after it
    ran (ContentCandidates.find): a later pass repeats only those."""

    def __init__(self) -> None:
        self.passes = 0
        # (page's language, row, language searched) -> (pass, rows its result depends on)
        self._searched: dict[tuple[str, int, str], tuple[int, list[int]]] = {}
        # (language of the rows, language searching them) -> row -> pass it is excluded from
        self._taken: dict[tuple[str, str], dict[int, int]] = {}

    def searched(self, lang: str, row: int, langs: list[str], looked: dict[str, list[int]]) -> None:
        for other in langs:  # a language not searched at all (no model, too little text) stays so
            self._searched[(lang, row, other)] = (self.passes, looked.get(other, []))

    def taken(self, index: SiteIndex, url: str, by_lang: str) -> None:
        where = index.locate(url)
        if where is not None:
            self._taken.setdefault((where[0], by_lang), {})[where[1]] = self.passes

    def changed(self, lang: str, row: int, other: str) -> bool:
        done = self._searched.get((lang, row, other))
        if done is None:
            return True
        at, rows = done
        taken = self._taken.get((other, lang), {})
        return any(taken.get(r, -1) > at for r in rows)


class TakenRows:
    """Pages that already have a candidate in ``lang``, per language (for the close sweep)."""

    def __init__(self, index: SiteIndex, has: set[tuple[str, str]]) -> None:
        self.index, self.has, self.lang = index, has, ""
        self._masks: dict[tuple[str, str], np.ndarray] = {}

    def mask(self, other_lang: str) -> np.ndarray:
        """The rows of ``other_lang`` that have a candidate in ``lang``, made once per pass
        (``has`` changes only between passes)."""
        key = (other_lang, self.lang)
        mask = self._masks.get(key)
        if mask is None:
            urls = self.index.index(other_lang).urls
            mask = np.fromiter(((u, self.lang) in self.has for u in urls), dtype=bool, count=len(urls))
            self._masks[key] = mask
        return mask
