"""One language's pages' main content, by row, the older pages' in a temporary file.

Tomás et al., *WebMining*, section 2.2, compare each new page with every earlier page of its
site, so a site keeps what the content filter (section 2.3) reads of each page for as long as the
crawl runs.  In memory that grows without limit with the site (about 3 KB a page: the word list,
token ids and compressed sentences of :class:`~matchers.page.page_content.PageContent`).  The
shelf keeps the ``in_memory`` most recent pages as they arrived and writes each older one, once,
to an unnamed temporary file (:class:`SpillFile`, one for the crawl's every site); a read of an older page decodes it from there (tens of
microseconds), and the last ``cache`` pages decoded are kept for the reads that come in runs (a
page's candidates, the close steps' passes).  The operating system's page cache, not the
crawl's heap, holds the file's recent parts.

A decoded page is a new object equal to the one written, with the same :attr:`PageContent.uid`,
which is what the content filter's caches key pages by.  Reads come from the content filter's
thread while the crawl's thread appends, so both go through one lock.
"""

from __future__ import annotations

import os
import struct
import tempfile
import threading
from collections import OrderedDict, deque
from typing import IO

import numpy as np

from matchers.page.page_content import PageContent

_HEAD = struct.Struct("<qiiiiiiiB")  # uid, sentences, words, tokens, word chars, packed, worded, key, lang


def encode_content(content: PageContent) -> bytes:
    """``content`` as bytes that :func:`decode_content` reads back (derived caches left out)."""
    words = content.words
    lang = content.lang.encode("utf-8")
    text = "".join(words).encode("utf-8", "surrogatepass")
    key = content._text_key
    worded = -1 if content._worded is None else content._worded
    narrow = len(words) < 1 << 16
    head = _HEAD.pack(content.uid, len(content.chars), len(words), len(content.ids), len(text),
                      len(content.packed), worded, -1 if key is None else len(key), len(lang))
    return b"".join((
        head, lang,
        np.asarray(content.chars, np.int32).tobytes(),
        np.asarray(content.offsets, np.int32).tobytes(),
        np.asarray(content.ids, np.uint16 if narrow else np.int32).tobytes(),
        np.fromiter((len(w) for w in words), np.int32, len(words)).tobytes(),
        text, key or b"", content.packed,
    ))


def decode_content(data: bytes | memoryview) -> PageContent:
    """The :class:`PageContent` that :func:`encode_content` wrote."""
    uid, n_sent, n_words, n_ids, n_text, n_packed, worded, n_key, n_lang = _HEAD.unpack_from(data)
    at = _HEAD.size
    lang = bytes(data[at : at + n_lang]).decode("utf-8")
    at += n_lang
    chars = np.frombuffer(data, np.int32, n_sent, at).copy()
    at += 4 * n_sent
    offsets = np.frombuffer(data, np.int32, n_sent + 1, at).astype(np.int64)
    at += 4 * (n_sent + 1)
    narrow = n_words < 1 << 16
    ids = np.frombuffer(data, np.uint16 if narrow else np.int32, n_ids, at).astype(np.int32)
    at += (2 if narrow else 4) * n_ids
    ends = np.cumsum(np.frombuffer(data, np.int32, n_words, at)).tolist()
    at += 4 * n_words
    text = bytes(data[at : at + n_text]).decode("utf-8", "surrogatepass")
    at += n_text
    words = [text[a:b] for a, b in zip([0, *ends], ends, strict=False)]
    key = bytes(data[at : at + n_key]) if n_key >= 0 else None
    at += max(n_key, 0)
    content = PageContent(lang=lang, packed=bytes(data[at : at + n_packed]), chars=chars, words=words,
                          ids=ids, offsets=offsets)
    content._uid = uid
    content._worded = None if worded < 0 else worded
    content._text_key = key
    return content


class SpillFile:
    """An unnamed temporary file that records are appended to and read back from by offset.

    One is shared by every shelf of a crawl, so a crawl of many large sites holds one file
    descriptor, not one per site and language.  Writes take a lock (each claims the next
    offset); reads need none: a record's bytes are on the file before its offset is returned."""

    def __init__(self, directory: str | None = None) -> None:
        self.directory = directory
        self._file: IO[bytes] | None = None
        self._end = 0
        self._lock = threading.Lock()

    def write(self, data: bytes) -> int:
        """Append ``data``; returns its offset."""
        with self._lock:
            if self._file is None:
                # Open for the crawl, closed by close() or with the process.
                self._file = tempfile.TemporaryFile(prefix="bitext-content-", dir=self.directory)  # noqa: SIM115
            at = self._end
            os.pwrite(self._file.fileno(), data, at)
            self._end = at + len(data)
            return at

    def read(self, at: int, size: int) -> bytes:
        assert self._file is not None
        return os.pread(self._file.fileno(), size, at)

    def fileno(self) -> int | None:
        return self._file.fileno() if self._file is not None else None

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
            self._end = 0


class ContentShelf:
    """Rows of one language's pages: each page's :class:`PageContent` or None (no content)."""

    def __init__(self, in_memory: int = 0, cache: int = 256, spill: SpillFile | None = None) -> None:
        """``in_memory``: most recent rows kept as they are (0: every row, nothing written);
        ``cache``: rows read back from the file kept decoded; ``spill``: the file the older rows
        go to (None: one of its own, in the system's temporary directory)."""
        self.in_memory = in_memory
        self.cache = cache
        self.spill = spill if spill is not None else SpillFile()
        self._recent: deque[PageContent | None] = deque()
        self._first_recent = 0  # row of _recent[0]; rows below it are in the file
        self._at = np.zeros(0, np.int64)  # per written row: offset in the file (-1: no content)
        self._size = np.zeros(0, np.int32)
        self._decoded: OrderedDict[int, PageContent] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._first_recent + len(self._recent)

    @property
    def written(self) -> int:
        """Rows whose content is in the file (read back on demand)."""
        return self._first_recent

    def append(self, content: PageContent | None) -> int:
        """Add the next row; returns it."""
        if content is not None:
            content.uid  # noqa: B018 - fixed now, on the thread that registers the page
        with self._lock:
            self._recent.append(content)
            while self.in_memory and len(self._recent) > self.in_memory:
                self._write(self._recent.popleft())
            return len(self) - 1

    def _write(self, content: PageContent | None) -> None:
        row = self._first_recent
        if row == len(self._at):
            grown = max(1024, 2 * row)
            self._at = np.resize(self._at, grown)
            self._size = np.resize(self._size, grown)
        if content is None:
            self._at[row], self._size[row] = -1, 0
        else:
            data = encode_content(content)
            self._at[row], self._size[row] = self.spill.write(data), len(data)
        self._first_recent = row + 1

    def __getitem__(self, row: int) -> PageContent | None:
        with self._lock:
            if row < 0:
                row += len(self)
            if not 0 <= row < len(self):
                raise IndexError(row)
            if row >= self._first_recent:
                return self._recent[row - self._first_recent]
            hit = self._decoded.get(row)
            if hit is not None:
                self._decoded.move_to_end(row)
                return hit
            at = int(self._at[row])
            if at < 0:
                return None
            content = decode_content(self.spill.read(at, int(self._size[row])))
            self._decoded[row] = content
            while len(self._decoded) > self.cache:
                self._decoded.popitem(last=False)
            return content
