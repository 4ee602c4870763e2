"""Link traps: URL patterns that keep yielding pages with nothing new.

A calendar whose every day links to the next, faceted search whose every filter links to more
filters, session ids in URLs, relative links that nest (``a/b/a/b/``): the pages never end and
hold nothing a corpus wants.  A page cap would stop a real 100,000-page news site as well, so the
crawl watches what each URL pattern yields, as ParaCrawl-era crawlers follow text yield, and
refuses pathological paths as Heritrix's ``PathologicalPathDecideRule`` does.

* A URL's *pattern* is its path with every run of digits written ``0`` and without its query:
  ``/calendar/2024-03-05?view=week`` and ``/calendar/1999-12-31`` are both ``/calendar/0-0-0``,
  ``/search?color=red&size=m`` is ``/search``.  An article at ``/news/2024/05/some-title`` is a
  pattern of its own: patterns only collect pages that differ in numbers and parameters.
* A page is *productive* when its text has a word not seen before on the site (case-folded,
  digits left out: "Events on 2024-03-05" and "Events on 2024-03-06" bring nothing new, nor do
  faceted-search pages that recombine the same filter labels), or when it links to a URL of
  another pattern not seen before (a listing page whose teasers were seen elsewhere still leads
  somewhere new).  A real page's text keeps bringing new words (names, places, terms) long after
  its site's common vocabulary has been seen.
* A pattern is a trap once ``min_pages`` of its pages have been seen and fewer than ``min_yield``
  of its last ``min_pages`` pages were productive.  Its URLs are then neither requested nor
  fetched (the ones already queued are dropped at download), and the log and the
  ``bitext/traps/`` stats say where.
* A path in which one segment or group of segments repeats more than ``max_repeats`` times in a
  row (``/a/b/a/b/a/b/``) is refused before it is fetched.

Memory is bounded: words and links are remembered in two generations of at most ``memory``
entries each (the older generation is dropped when the newer one fills), and each pattern keeps
its last ``min_pages`` verdicts as the bits of one int.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]+")


def url_pattern(url: str) -> str:
    """The path of ``url`` with digit runs written ``0``, without query and fragment."""
    return _DIGITS.sub("0", urlsplit(url).path or "/")


def pathological(url: str, max_repeats: int) -> bool:
    """Whether a segment, or a group of segments, of the path repeats more than ``max_repeats``
    times in a row (Heritrix's PathologicalPathDecideRule)."""
    if max_repeats <= 0:
        return False
    segments = [s for s in urlsplit(url).path.split("/") if s]
    n = len(segments)
    for size in range(1, n // (max_repeats + 1) + 1):
        for start in range(n - size * (max_repeats + 1) + 1):
            group = segments[start:start + size]
            if all(segments[start + k * size:start + (k + 1) * size] == group for k in range(1, max_repeats + 1)):
                return True
    return False


class _Seen:
    """A bounded set: two generations, the older dropped when the newer fills."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self.new: set[str] = set()
        self.old: set[str] = set()

    def add(self, keys: set[str]) -> set[str]:
        """Add ``keys``; those that were new (set operations: a page's words in one go)."""
        fresh = keys - self.new - self.old
        if fresh:
            if len(self.new) + len(fresh) > self.capacity:
                self.old, self.new = self.new, set()
            self.new |= fresh
        return fresh


@dataclass(slots=True)
class _Pattern:
    # Every article URL is a pattern of its own, so this is kept small: the verdicts of the last
    # min_pages pages as the bits of an int, newest lowest.
    window: int = 0
    pages: int = 0
    productive: int = 0


@dataclass(frozen=True)
class Trap:
    """A pattern found to be a trap: its pages seen, and how many of them were productive."""

    pattern: str
    pages: int
    productive: int


@dataclass
class LinkTraps:
    """The traps of one site (module docstring); ``min_pages`` 0 turns the yield check off."""

    min_pages: int = 50
    min_yield: float = 0.1
    max_repeats: int = 2
    memory: int = 50_000
    traps: dict[str, Trap] = field(default_factory=dict)
    _patterns: dict[str, _Pattern] = field(default_factory=dict)
    _words: _Seen = field(init=False)
    _links: _Seen = field(init=False)

    def __post_init__(self) -> None:
        self._words = _Seen(self.memory)
        self._links = _Seen(self.memory)

    def refused(self, url: str) -> str | None:
        """Why ``url`` is not to be fetched (``"trap"`` or ``"pathological"``), or None."""
        if self.traps and url_pattern(url) in self.traps:
            return "trap"
        if pathological(url, self.max_repeats):
            return "pathological"
        return None

    def observe(self, url: str, blocks: Iterable[str], links: Iterable[str]) -> Trap | None:
        """Record a fetched page's text blocks and links; the trap its pattern became, if it just did."""
        if self.min_pages <= 0:
            return None
        pattern = url_pattern(url)
        productive = bool(self._words.add(set(_WORD.findall(" ".join(blocks).casefold()))))
        fresh_links = self._links.add(set(links))
        productive = productive or any(url_pattern(link) != pattern for link in fresh_links)
        if pattern in self.traps:
            return None
        stats = self._patterns.get(pattern)
        if stats is None:
            stats = self._patterns[pattern] = _Pattern()
        stats.pages += 1
        stats.productive += productive
        stats.window = ((stats.window << 1) | productive) & ((1 << self.min_pages) - 1)
        if stats.pages >= self.min_pages and stats.window.bit_count() < self.min_yield * self.min_pages:
            trap = self.traps[pattern] = Trap(pattern, stats.pages, stats.productive)
            del self._patterns[pattern]
            return trap
        return None
