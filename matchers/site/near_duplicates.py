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

import contextlib
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

    A site keeps this for every page it crawls, so hashes are kept as 64-bit integers (the first
    eight bytes of the MD5), a page's as one array, and the postings as lists of page numbers."""

    def __init__(self, threshold: float = NEAR_DUPLICATE_SHARE, max_postings: int = MAX_POSTINGS) -> None:
        self.threshold = threshold
        self.max_postings = max_postings
        self._pages: dict[int, np.ndarray] = {}  # indexed (kept) pages: number -> sorted hashes
        self._number: dict[str, int] = {}  # url -> number, in arrival order (ties go to the lower)
        self._url: dict[int, str] = {}
        self._postings: dict[int, list[int]] = {}
        self._dropped: dict[str, str] = {}  # dropped url -> kept url (resolved on read)
        self._seen = 0

    def __len__(self) -> int:
        """Pages indexed (kept so far)."""
        return len(self._pages)

    def _remove(self, url: str) -> None:
        number = self._number.get(url)
        hashes = self._pages.pop(number, None) if number is not None else None
        if hashes is None:
            return
        for h in hashes.tolist():
            pages = self._postings.get(h)
            if pages is not None:
                with contextlib.suppress(ValueError):
                    pages.remove(number)
                if not pages:
                    del self._postings[h]

    def _insert(self, number: int, hashes: list[int]) -> None:
        self._pages[number] = np.array(sorted(hashes), dtype=np.uint64)
        for h in hashes:
            pages = self._postings.get(h)
            if pages is None:
                self._postings[h] = [number]
            else:
                pages.append(number)

    def _matches(self, hashes: set[int]) -> list[tuple[int, float]]:
        # Shared hashes are counted over the postings used to find candidates; a candidate's
        # overlap is at most that count plus the page's frequent hashes (not used to find it), so
        # only candidates that bound lets past the threshold get the exact intersection.
        shared: dict[int, int] = {}
        frequent = 0
        for h in hashes:
            pages = self._postings.get(h)
            if not pages:
                continue
            if len(pages) > self.max_postings:
                frequent += 1
                continue
            for other in pages:
                shared[other] = shared.get(other, 0) + 1
        found = []
        n = len(hashes)
        for other, count in shared.items():
            theirs = self._pages[other]
            shorter = min(n, len(theirs))
            if (count + frequent) / shorter <= self.threshold:
                continue
            if frequent:
                count = sum(1 for h in theirs.tolist() if h in hashes)
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
        self._seen += 1
        number = self._seen
        old = self._number.get(url)
        if old is not None:
            del self._url[old]
        self._number[url], self._url[number] = number, url
        matches = self._matches(mine)
        # The earlier page wins ties, so "at least as long" keeps it.
        keepers = [(o, s) for o, s in matches if len(self._pages[o]) >= len(mine)]
        if keepers:
            kept, share = max(keepers, key=lambda m: (m[1], len(self._pages[m[0]]), -m[0]))
            self._dropped[url] = self._url[kept]
            return [NearDuplicate(kept=self._url[kept], dropped=url, share=share)]
        decisions = []
        for other, share in sorted(matches):
            other_url = self._url[other]
            self._remove(other_url)
            self._dropped[other_url] = url
            decisions.append(NearDuplicate(kept=url, dropped=other_url, share=share))
        self._insert(number, sorted(mine))
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
