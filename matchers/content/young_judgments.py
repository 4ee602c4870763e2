"""Candidates a young translation model let through, judged again as soon as the model matures.

Tomás et al., *WebMining*, section 2.3: until the language pair's model has a good estimation,
the earlier filters decide, and content only vetoes candidates with (almost) no aligned
translation (matchers.content.content_schedule).  Such a candidate is judged again by a trained
model: the one the crawl has when the model reaches ``BITEXT_CONTENT_MATURE_SENTENCES``, the same
judge a candidate arriving then gets, which keeps that work in the crawl instead of the close
(matchers.content.content_filter).  This module only keeps the books: which candidates were judged
young, per site and language pair, which language pairs have matured since, and the verdicts, by
the two pages' content identities, until the close applies them to the stored candidates.
"""

from __future__ import annotations

from dataclasses import dataclass

# A page of the site's index: (language, row).
Page = tuple[str, int]
# (site id, one language, the other), the languages sorted.
PairKey = tuple[int, str, str]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A mature model's judgment of a candidate: its share and mean bead probability, or
    ``share`` None when a page had too little main content to judge."""

    share: float | None
    mean: float | None


def _key(site_id: int, lang_a: str, lang_b: str) -> PairKey:
    first, second = sorted((lang_a, lang_b))
    return (site_id, first, second)


class YoungJudgments:
    """The books of :mod:`matchers.content.young_judgments`; used from the content filter's one
    thread."""

    def __init__(self) -> None:
        self._young: dict[PairKey, list[tuple[Page, Page]]] = {}
        self._due: dict[PairKey, list[tuple[Page, Page]]] = {}
        self._verdicts: dict[int, dict[frozenset[int], Verdict]] = {}

    def add(self, site_id: int, page: Page, other: Page) -> None:
        """Note a candidate judged by a young model (``page`` the page that arrived)."""
        key = _key(site_id, page[0], other[0])
        if key in self._due:  # matured already: the next batch takes it
            self._due[key].append((page, other))
        else:
            self._young.setdefault(key, []).append((page, other))

    def waiting(self, site_id: int) -> list[tuple[str, str]]:
        """The site's language pairs with young candidates whose model has not matured yet."""
        return [(k[1], k[2]) for k in self._young if k[0] == site_id]

    def matured(self, site_id: int, lang_a: str, lang_b: str) -> None:
        """The language pair's model has just matured: its young candidates are due."""
        key = _key(site_id, lang_a, lang_b)
        pending = self._young.pop(key, None)
        if pending:
            self._due.setdefault(key, []).extend(pending)

    def take_due(self, site_id: int, limit: int) -> list[tuple[Page, Page]]:
        """Up to ``limit`` of the site's due candidates as ``(page, other)``, the language pair
        that matured first first; the rest stay due."""
        out: list[tuple[Page, Page]] = []
        for key in [k for k in self._due if k[0] == site_id]:
            pending = self._due[key]
            n = limit - len(out)
            out.extend(pending[:n])
            del pending[:n]
            if not pending:
                del self._due[key]
            if len(out) >= limit:
                break
        return out

    @property
    def due(self) -> int:
        return sum(len(v) for v in self._due.values())

    def judged(self, site_id: int, uid_a: int, uid_b: int, verdict: Verdict) -> None:
        self._verdicts.setdefault(site_id, {})[frozenset((uid_a, uid_b))] = verdict

    def verdict(self, site_id: int, uid_a: int, uid_b: int) -> Verdict | None:
        """The verdict on the two pages, once (the close applies it and it is no longer needed)."""
        return self._verdicts.get(site_id, {}).pop(frozenset((uid_a, uid_b)), None)

    def forget_site(self, site_id: int) -> None:
        """Drop the books of a site once its close-time steps have run."""
        for books in (self._young, self._due):
            for key in [k for k in books if k[0] == site_id]:
                del books[key]
        self._verdicts.pop(site_id, None)
