"""The index of a site's earlier pages, by language, that each new page is compared against.

Tomás et al., *WebMining*, section 2.2: "Once a new page is downloaded, it is stored and compared
to all previously downloaded ones looking for possible parallel webpages."  Each language keeps
its pages' sizes in growable numpy columns (the size filter is one vectorized pass) and their tag
sequences in one flat :class:`~matchers.structure.tag_store.TagSequenceStore` (the structure filter runs
one batched kernel call).  A new page is registered and handed its candidate sets in one step, so
two pages processed concurrently still meet: the later one always sees the earlier one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from matchers.content.bag_index import BagIndex
from matchers.content.hard_rules import TEXT_KEY_BYTES
from matchers.page.page_content import PageContent
from matchers.site.content_shelf import ContentShelf, SpillFile
from matchers.structure.best_structure import BestStructure
from matchers.structure.tag_codes import TagCodes
from matchers.structure.tag_store import TagSequenceStore

MIN_DUP_TOKENS = 20


class ContentSummary(NamedTuple):
    """What the close's decision reads of a page's main content for every candidate.  The full
    content of an older page is on disk (matchers.site.content_shelf); decoding it for each of a
    large site's candidates was a large part of the decision (docs/benchmarks.md (j))."""

    n_tokens: int
    text_key: bytes


def _fingerprint(tokens: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(tokens, dtype=np.int32).tobytes(), digest_size=16).digest()


class GrowableColumn:
    """Append-only numpy column with amortized doubling."""

    def __init__(self, dtype: type | np.dtype, capacity: int = 256) -> None:
        self._data = np.zeros(capacity, dtype=dtype)
        self._n = 0

    def append(self, value: float) -> None:
        if self._n == len(self._data):
            grown = np.zeros(2 * len(self._data), dtype=self._data.dtype)
            grown[: self._n] = self._data[: self._n]
            self._data = grown
        self._data[self._n] = value
        self._n += 1

    def view(self, n: int | None = None) -> np.ndarray:
        return self._data[: self._n if n is None else n]

    def __len__(self) -> int:
        return self._n


@dataclass
class PageFeatures:
    """What the index needs of one page."""

    url: str
    lang: str
    size_bytes: int
    size_chars: int
    n_tags: int
    n_paragraphs: int
    tokens: np.ndarray
    content: PageContent | None = None
    day: int | None = None  # publication day (matchers.page.publication_date)
    copy_of: str | None = None  # the URL its rel=canonical names: the page is a copy (print version)

    @cached_property
    def fingerprint(self) -> bytes:
        """Hash of the tag sequence, computed once for the duplicate check and the registration."""
        return _fingerprint(self.tokens)


@dataclass
class CandidateSet:
    """Earlier pages of one other language still in the running for a new page.

    ``rows`` index that language's :class:`LanguageIndex`; ``scores`` holds one array per filter
    that has run, aligned with ``rows``.  Filters narrow the set with :meth:`narrow`.
    """

    lang: str
    rows: np.ndarray
    scores: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    def add_scores(self, **scores: np.ndarray) -> None:
        for name, values in scores.items():
            self.scores[name] = np.asarray(values)

    def extend(self, rows: np.ndarray, **scores: np.ndarray) -> None:
        """Add candidates; scores they lack are NaN (or 0 for integer scores)."""
        rows = np.asarray(rows, dtype=np.int64)
        n_old, n_new = len(self.rows), len(rows)
        for name in set(self.scores) | set(scores):
            old = self.scores.get(name)
            new = np.asarray(scores[name]) if name in scores else None
            dtype = np.result_type(*(a.dtype for a in (old, new) if a is not None), np.float64)
            merged = np.full(n_old + n_new, np.nan, dtype=dtype)
            if old is not None:
                merged[:n_old] = old
            if new is not None:
                merged[n_old:] = new
            self.scores[name] = merged
        self.rows = np.concatenate([self.rows, rows])

    def take(self, positions: np.ndarray, rows: np.ndarray | None = None) -> None:
        """Keep only the candidates at ``positions`` (increasing indices into ``rows``);
        ``rows``: ``self.rows[positions]`` when the caller has it already."""
        self.rows = self.rows[positions] if rows is None else rows
        self.scores = {k: v[positions] for k, v in self.scores.items()}

    def narrow(self, mask: np.ndarray) -> None:
        """Keep only the candidates where ``mask`` is true (scores follow)."""
        mask = np.asarray(mask, dtype=bool)
        self.rows = self.rows[mask]
        self.scores = {k: v[mask] for k, v in self.scores.items()}


class LanguageIndex:
    """Pages of one language on one site."""

    def __init__(self, content: ContentShelf | None = None, codes: TagCodes | None = None) -> None:
        self.urls: list[str] = []
        self.size_bytes = GrowableColumn(np.int64)
        self.size_chars = GrowableColumn(np.int64)
        self.n_tags = GrowableColumn(np.int64)
        self.n_paragraphs = GrowableColumn(np.int64)
        self.content_length = GrowableColumn(np.int64)
        self.content_tokens = GrowableColumn(np.int64)  # -1: no main content
        self._text_keys = bytearray()  # TEXT_KEY_BYTES a row
        self._unkeyed: set[int] = set()  # rows whose content came without its key (read on demand)
        # Read by row (``content[row]``); older rows come back from disk as equal copies.
        self.content = content if content is not None else ContentShelf()
        self.tags = TagSequenceStore(codes=codes)
        self.best_structure = BestStructure()

    def __len__(self) -> int:
        return len(self.urls)

    def add(self, page: PageFeatures) -> int:
        row = self.tags.add(page.tokens)
        self.urls.append(page.url)
        self.size_bytes.append(page.size_bytes)
        self.size_chars.append(page.size_chars)
        self.n_tags.append(page.n_tags)
        self.n_paragraphs.append(page.n_paragraphs)
        self.content.append(page.content)
        content = page.content
        self.content_length.append(content.length if content is not None else 0)
        self.content_tokens.append(content.n_tokens if content is not None else -1)
        # A parse's draft brings the key; content built otherwise (a resumed crawl) computes it
        # when first read, as PageContent.text_key does.
        key = content._text_key if content is not None else None
        if content is not None and (key is None or len(key) != TEXT_KEY_BYTES):
            self._unkeyed.add(row)
            key = None
        self._text_keys += key if key is not None else bytes(TEXT_KEY_BYTES)
        return row

    def summary(self, row: int) -> ContentSummary | None:
        """The row's :class:`ContentSummary`, None for a page without main content."""
        n = int(self.content_tokens.view()[row])
        if n < 0:
            return None
        at = slice(row * TEXT_KEY_BYTES, (row + 1) * TEXT_KEY_BYTES)
        if row in self._unkeyed:
            content = self.content[row]
            assert content is not None
            key = content.text_key
            self._text_keys[at] = key
            self._unkeyed.discard(row)
            return ContentSummary(n, key)
        return ContentSummary(n, bytes(self._text_keys[at]))

    def size_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Bytes, weighted characters, tags and paragraphs of every page, by row (views)."""
        return self.size_bytes.view(), self.size_chars.view(), self.n_tags.view(), self.n_paragraphs.view()


class SiteIndex:
    """All languages of one site.

    ``content_in_memory`` and ``spill``: how many of each language's most recent pages keep
    their main content in memory, and the file the older pages' content is written to
    (:class:`~matchers.site.content_shelf.ContentShelf`; 0 keeps every page's in memory)."""

    def __init__(self, key: str, content_in_memory: int = 0, spill: SpillFile | None = None) -> None:
        self.key = key
        self.content_in_memory = content_in_memory
        self.spill = spill if spill is not None else SpillFile()
        self.languages: dict[str, LanguageIndex] = {}
        # One numbering of tags for all languages: the decision compares sequences across them.
        self.tag_codes = TagCodes()
        self._urls: dict[str, tuple[str, int]] = {}  # url -> (language, row)
        self._fingerprints: dict[str, dict[bytes, str]] = {}  # language -> sequence hash -> URL
        # The pages' bags of words, for candidates on content alone (same rows as the languages).
        self.bags = BagIndex()
        self._rows = np.zeros(0, dtype=np.int64)

    def __contains__(self, url: str) -> bool:
        return url in self._urls

    def __len__(self) -> int:
        return len(self._urls)

    @property
    def content_spilled(self) -> int:
        """Pages whose main content has been moved to disk (all languages)."""
        return sum(lindex.content.written for lindex in self.languages.values())

    def duplicate_of(self, page: PageFeatures) -> str | None:
        """URL of an earlier page of the same language with the very same tag sequence.

        Sites serve one page under several URLs (``/dir/`` and ``/dir/index.html``, tracking
        parameters); a copy would compete with its original for the same translation.  Equal
        sequences (word counts of every text chunk included) of at least ``MIN_DUP_TOKENS`` tokens
        are taken as copies; shorter ones are too generic to tell.
        """
        if len(page.tokens) < MIN_DUP_TOKENS:
            return None
        first = self._fingerprints.get(page.lang, {}).get(page.fingerprint)
        return first if first is not None and first != page.url else None

    def register(self, page: PageFeatures) -> list[CandidateSet]:
        """Add ``page`` and return every earlier page of each other language as candidates.

        A URL already registered (a resumed crawl re-reading it) yields no candidates.
        """
        if page.url in self._urls:
            return []
        candidates = [
            CandidateSet(lang=lang, rows=self._row_numbers(len(index)))
            for lang, index in self.languages.items()
            if lang != page.lang and len(index)
        ]
        if page.lang not in self.languages:
            self.languages[page.lang] = LanguageIndex(ContentShelf(self.content_in_memory, spill=self.spill),
                                                      self.tag_codes)
        row = self.languages[page.lang].add(page)
        # A copy is never paired in its page's place, so content alone does not propose it.
        self.bags.add(page.lang, row, page.content if page.copy_of is None else None, page.day)
        self._urls[page.url] = (page.lang, row)
        if len(page.tokens) >= MIN_DUP_TOKENS:
            self._fingerprints.setdefault(page.lang, {}).setdefault(page.fingerprint, page.url)
        return candidates

    def _row_numbers(self, n: int) -> np.ndarray:
        """``arange(n)`` as a read-only view of one growing buffer.

        A new array of a large site's rows at every page would cost an allocation, and numpy
        lets the GIL go while it fills one that long: the reactor thread, which registers the
        pages, would then wait to have it back from the crawl's other threads."""
        if len(self._rows) < n:
            self._rows = np.arange(max(n, 2 * len(self._rows), 256), dtype=np.int64)
            self._rows.flags.writeable = False
        return self._rows[:n]

    def admit(self, page: PageFeatures) -> tuple[str | None, list[CandidateSet]]:
        """The one way a page enters its site's index, as it arrives or when a crawl resumes from
        the database: ``(URL of the earlier page it copies, [])`` for a copy, which is not
        registered (it cannot take its original's translation), else ``(None, candidates)`` as
        :meth:`register` gives them."""
        original = self.duplicate_of(page)
        if original is not None:
            return original, []
        return None, self.register(page)

    def index(self, lang: str) -> LanguageIndex:
        return self.languages[lang]

    def locate(self, url: str) -> tuple[str, int] | None:
        """``(language, row)`` of a registered page."""
        return self._urls.get(url)

    def content(self, url: str) -> PageContent | None:
        where = self._urls.get(url)
        return self.languages[where[0]].content[where[1]] if where else None

    def content_summary(self, url: str) -> ContentSummary | None:
        """:meth:`content`'s token count and text key, without reading an older page from disk."""
        where = self._urls.get(url)
        return self.languages[where[0]].summary(where[1]) if where else None
