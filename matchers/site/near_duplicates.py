"""Near-duplicate pages of one site and language, by shared paragraph hashes.

Papavassiliou et al., *ILSP-FC*, section 3.8 ("De-duplicator"): each document is "a list
containing the MD5 hashes of the main content's paragraphs, i.e. paragraphs without the
*crawlinfo* attribute" (neither boilerplate nor in another language, section 3.7); two documents
whose intersection has "more than 0.8" of the shorter list's cardinality are near-duplicates and
"the shortest is discarded".

ILSP-FC checks each document "against all other document lists" once the crawl is over.  Here
pages arrive one at a time, so :class:`NearDuplicateIndex` keeps an inverted index from hash to
pages and compares a new page only with the pages that share a hash with it; hashes found on more
than ``max_postings`` pages (template text that escaped the boilerplate filter) are not used to
find candidates, which keeps a page's cost bounded by its own paragraph count (they still count
in the overlap of the candidates found).  Decisions, where the paper's batch rule says nothing:

* hash lists are compared as sets: a paragraph repeated on a page counts once;
* the shorter page is dropped, as in the paper.  If the *new* page is the longer one, the earlier
  page is dropped and the new one kept, even though the earlier one may already have been paired
  or exported: the :class:`NearDuplicate` returned says so, and the caller retracts it.  On a tie
  the earlier page is kept (nothing to retract);
* a new page that is a near-duplicate of several pages is dropped as soon as one of them is at
  least as long (kept: the best overlap among those); if it is longer than all of them, all of
  them are dropped;
* a dropped page leaves the index (later pages are compared with what was kept), and
  :meth:`NearDuplicateIndex.duplicates` maps every dropped URL to the page finally kept;
* a page without main-content paragraphs is neither indexed nor a duplicate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from matchers.page.lang_codes import same_language
from matchers.structure.fingerprint import content_paragraphs

# Section 3.8: near-duplicates share "more than 0.8" of the shorter list.
NEAR_DUPLICATE_SHARE = 0.8
MAX_POSTINGS = 200
MERGE_MIN = 4096  # a merge copies the whole index: it waits for at least this many pending entries


def paragraph_hashes(paragraphs: Iterable[Any], lang: str | None = None) -> list[bytes]:
    """MD5 of each main-content paragraph's text, case-folded and whitespace-collapsed.

    ``paragraphs`` are :class:`matchers.page.main_content.Paragraph` objects (boilerplate skipped) or
    stored ``[kind, lang, text]`` triples.  With ``lang``, paragraphs identified as another
    language are skipped too (ILSP-FC's ``crawlinfo="ooi-lang"``).
    """
    out: list[bytes] = []
    for _kind, plang, text in content_paragraphs(paragraphs):
        if lang and plang and plang != "und" and not same_language(plang, lang):
            continue
        norm = " ".join(text.casefold().split())
        if norm:
            out.append(hashlib.md5(norm.encode("utf-8", "surrogatepass")).digest())
    return out


@dataclass(frozen=True, slots=True)
class NearDuplicate:
    """One decision: ``dropped`` is a near-duplicate of ``kept`` (``share`` of the shorter's hashes)."""

    kept: str
    dropped: str
    share: float


class NearDuplicateIndex:
    """Incremental near-duplicate detection among the pages of one site in one language.

    A site keeps one for every language it crawls, for every page, so the long-lived state is a
    few numpy arrays, about 20 bytes a hash: hashes are 64-bit integers (the first eight bytes of
    the MD5); a page's hashes sit in one flat array, found by its number; the postings are two
    arrays sorted by hash (hash, page number).  Pages indexed since the last merge have their
    postings in a small dict, merged into the arrays once it holds more than ``merge_min`` entries
    and an eighth of the arrays (so each entry is copied O(log n) times, by numpy).  A dropped
    page is marked dead and its entries skipped until the next merge leaves them out."""

    def __init__(
        self,
        threshold: float = NEAR_DUPLICATE_SHARE,
        max_postings: int = MAX_POSTINGS,
        *,
        merge_min: int = MERGE_MIN,
    ) -> None:
        self.threshold = threshold
        self.max_postings = max_postings
        self.merge_min = merge_min
        # Pages are numbered in arrival order (ties go to the lower number).  Page n's distinct
        # hashes are _flat[_start[n]:_start[n] + _count[n]]; a dead page's stay until compacted.
        self._flat = np.empty(0, np.uint64)
        self._used = 0
        self._dead_flat = 0
        self._start = np.empty(0, np.int64)
        self._count = np.empty(0, np.int32)
        self._alive = np.empty(0, np.bool_)
        self._urls: list[str | None] = []  # number -> url, None once dropped or re-crawled
        self._number: dict[str, int] = {}  # url -> number, for indexed pages only
        # Postings of pages numbered below _merged; the later pages' are in _recent (a page
        # number, or a list when several pages have the hash).
        self._post_h = np.empty(0, np.uint64)
        self._post_p = np.empty(0, np.int32)
        self._merged = 0
        self._recent: dict[int, int | list[int]] = {}
        # Entries of dead pages still in the postings, by hash, so that "on more than
        # max_postings pages" counts live pages exactly between merges.
        self._dead: dict[int, int] = {}
        self._pending = 0  # entries in _recent and _dead: what the next merge clears
        self._dropped: dict[str, str] = {}  # dropped url -> kept url (resolved on read)

    def __len__(self) -> int:
        """Pages indexed (kept so far)."""
        return len(self._number)

    def _hashes(self, number: int) -> list[int]:
        start = int(self._start[number])
        return self._flat[start:start + int(self._count[number])].tolist()

    def _remove(self, url: str) -> None:
        number = self._number.pop(url, None)
        if number is None:
            return
        self._urls[number] = None
        self._alive[number] = False
        hashes = self._hashes(number)
        self._dead_flat += len(hashes)
        self._pending += len(hashes)
        dead = self._dead
        for h in hashes:
            dead[h] = dead.get(h, 0) + 1

    def _insert(self, url: str, hashes: set[int]) -> None:
        number, k = len(self._urls), len(hashes)
        if number == len(self._alive):
            self._start = _grown(self._start, number + 1)
            self._count = _grown(self._count, number + 1)
            self._alive = _grown(self._alive, number + 1)
        if self._used + k > len(self._flat):
            self._flat = _grown(self._flat, self._used + k)
        self._flat[self._used:self._used + k] = list(hashes)
        self._start[number], self._count[number], self._alive[number] = self._used, k, True
        self._used += k
        self._urls.append(url)
        self._number[url] = number
        recent = self._recent
        for h in hashes:
            pages = recent.get(h)
            if pages is None:
                recent[h] = number
            elif type(pages) is int:
                recent[h] = [pages, number]
            else:
                pages.append(number)
        self._pending += k
        if self._pending > max(self.merge_min, len(self._post_h) // 8):
            self._merge()

    def _merge(self) -> None:
        n, first = len(self._urls), self._merged
        alive, count = self._alive[:n], self._count[:n]
        if self._dead:
            # Each array is replaced as soon as it is filtered, so the peak is one copy more.
            keep = alive[self._post_p]
            self._post_h = self._post_h[keep]
            self._post_p = self._post_p[keep]
            del keep
        if first < n:
            new_p = np.repeat(np.arange(first, n, dtype=np.int32), count[first:])
            new_h = self._flat[int(self._start[first]):self._used]
            if self._dead:
                keep = alive[new_p]
                new_h, new_p = new_h[keep], new_p[keep]
            order = np.argsort(new_h, kind="stable")
            new_h, new_p = new_h[order], new_p[order]
            at = self._post_h.searchsorted(new_h)
            self._post_h = np.insert(self._post_h, at, new_h)
            self._post_p = np.insert(self._post_p, at, new_p)
        self._merged = n
        self._recent = {}
        self._dead = {}
        self._pending = 0
        if self._dead_flat:
            # Dead pages keep no hashes: their counts become 0 and the offsets are recomputed.
            self._flat = self._flat[:self._used][np.repeat(alive, count)]
            self._used = len(self._flat)
            self._dead_flat = 0
            count[~alive] = 0
            self._start[:n] = np.cumsum(count) - count

    def _matches(self, hashes: set[int]) -> list[tuple[int, float]]:
        # Shared hashes are counted over the postings used to find candidates; a candidate's
        # overlap is at most that count plus the page's frequent hashes (not used to find it), so
        # only candidates that bound lets past the threshold get the exact intersection.
        keys = list(hashes)
        post_h, post_p = self._post_h, self._post_p
        if len(post_h):
            needles = np.array(keys, dtype=np.uint64)
            los, his = post_h.searchsorted(needles).tolist(), post_h.searchsorted(needles, "right").tolist()
        else:
            los = his = [0] * len(keys)
        recent, dead, urls = self._recent, self._dead, self._urls
        shared: dict[int, int] = {}
        frequent = 0
        for h, lo, hi in zip(keys, los, his, strict=True):
            later: int | list[int] | None = recent.get(h)
            if later is None:
                if lo == hi:
                    continue
                later = []
            elif type(later) is int:
                later = [later]
            # Counted before any page list is built: a frequent hash's can be the whole site.
            live = hi - lo + len(later) - (dead.get(h, 0) if dead else 0)
            if not live:
                continue
            if live > self.max_postings:
                frequent += 1
                continue
            for other in post_p[lo:hi].tolist() + later if lo < hi else later:
                if urls[other] is not None:
                    shared[other] = shared.get(other, 0) + 1
        found = []
        n = len(hashes)
        for other, count in shared.items():
            shorter = min(n, int(self._count[other]))
            if (count + frequent) / shorter <= self.threshold:
                continue
            if frequent:
                count = sum(1 for h in self._hashes(other) if h in hashes)
            share = count / shorter
            if share > self.threshold:  # strictly more, as the paper says
                found.append((other, share))
        return found

    def add(self, url: str, hashes: Sequence[bytes]) -> list[NearDuplicate]:
        """Index a page; the near-duplicate decisions it causes (empty when it is not one).

        Either one decision dropping the new page, or one per earlier page it replaces.  Adding
        a URL again (a re-crawl) replaces its earlier hashes.
        """
        self._remove(url)
        self._dropped.pop(url, None)
        mine = {int.from_bytes(h[:8], "little") for h in hashes}
        if not mine:
            return []
        matches = self._matches(mine)
        length = self._count
        # The earlier page wins ties, so "at least as long" keeps it.
        keepers = [(o, s) for o, s in matches if length[o] >= len(mine)]
        if keepers:
            kept, share = max(keepers, key=lambda m: (m[1], int(length[m[0]]), -m[0]))
            kept_url = self._urls[kept]
            assert kept_url is not None
            self._dropped[url] = kept_url
            return [NearDuplicate(kept=kept_url, dropped=url, share=share)]
        decisions = []
        for other, share in sorted(matches):
            other_url = self._urls[other]
            assert other_url is not None
            self._remove(other_url)
            self._dropped[other_url] = url
            decisions.append(NearDuplicate(kept=url, dropped=other_url, share=share))
        self._insert(url, mine)
        return decisions

    def kept_for(self, url: str) -> str:
        """The page finally kept for ``url`` (``url`` itself unless it was dropped)."""
        seen = {url}
        while url in self._dropped:
            url = self._dropped[url]
            if url in seen:  # cannot happen through add(); guards a corrupted chain
                break
            seen.add(url)
        return url

    def duplicates(self) -> dict[str, str]:
        """Every dropped URL -> the URL kept in its place now (chains of replacements followed)."""
        return {dropped: self.kept_for(dropped) for dropped in self._dropped}


def _grown(a: np.ndarray, need: int) -> np.ndarray:
    """``a`` with room for at least ``need`` items.  An eighth more each time: appends copy each
    item O(1) times, and the slack is about what the postings merge adds in the meantime."""
    out = np.empty(max(need, len(a) + len(a) // 8 + 1024), a.dtype)
    out[:len(a)] = a
    return out
