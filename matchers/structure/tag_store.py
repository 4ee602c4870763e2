"""Growable store of tag sequences laid out for :func:`matchers.structure.edit_distance.batch_distances`.

Each page is encoded and histogrammed once, when it is added; comparing a new page against many
stored ones is then a single parallel numba call over one flat token array, with no per-pair
Python work.

Tokens are stored as the site's two-byte codes (:mod:`matchers.structure.tag_codes`, shared by
the stores of a site's languages); the methods that compare take linearize's int32 tokens and
encode them, unless told that they are a store's own (``encoded=True``).

Memory: 2 bytes per stored token in the flat array, which grows by doubling, so up to 4 bytes
per token right after a doubling; plus, per stored sequence, 8 bytes of offset, 8 bytes of
length and ``2 * nbuckets`` bytes of histogram (144 bytes in all with the default 64 buckets),
also in doubling arrays.  A 5,000-page language side of 2,000-token pages is 20-40 MB of tokens
and 0.7-1.4 MB of per-page data.

Histograms are kept as uint16, their counts capped at 65,535 (query histograms too).  The
lower bound stays valid: capping moves a count by at most 1 when an edit moves it by 1, which
is all the bound's proof needs (matchers.structure.edit_distance.lower_bound).  Histograms are computed when a comparison first needs them, so
a store that is only read for its sequences (the crawl process's copy, when the structure filter
runs in a worker process) holds none.

Not thread-safe for concurrent ``add``; ``distances`` only reads and may run while no ``add``
is in progress (numba releases the GIL inside it).
"""

from __future__ import annotations

import numpy as np

from matchers.structure.edit_distance import batch_distances, batch_lower_bounds, histogram, serial_distances
from matchers.structure.tag_codes import TagCodes

_INITIAL_TOKENS = 1 << 16
_INITIAL_ROWS = 256
_HIST_MAX = np.iinfo(np.uint16).max
# A single row is compared on the calling thread (serial_distances): the parallel kernel splits
# rows, so it gains nothing there, and its region waits for a thread that the other core's work
# (the crawl's, the models' save at close) may have descheduled.  A W3C page against one
# translation: 63 us on the calling thread, 65 us parallel with the other core idle, 127 us with
# it busy (benchmarks/bench_edit_distance.py --rows 1,2,4); in the close's decision, which compares
# one pair at a time, 0.7 ms a call beside the models' save.  From two rows on the parallel kernel
# is faster on idle cores and about as fast on busy ones.
_PARALLEL_ROWS = 2


def _capped(hist: np.ndarray) -> np.ndarray:
    return np.minimum(hist, _HIST_MAX).astype(np.uint16)


class TagSequenceStore:
    """Append-only tag sequences: one flat int16 token array, offsets, lengths, histograms.

    ``codes``: the site's :class:`~matchers.structure.tag_codes.TagCodes` (a store of its own
    when None)."""

    def __init__(
        self,
        nbuckets: int = 64,
        initial_tokens: int = _INITIAL_TOKENS,
        initial_rows: int = _INITIAL_ROWS,
        codes: TagCodes | None = None,
    ) -> None:
        if nbuckets < 2:
            raise ValueError("nbuckets must be >= 2 (bucket 0 holds all texts)")
        self.nbuckets = nbuckets
        self.codes = codes if codes is not None else TagCodes()
        self._flat = np.empty(max(1, initial_tokens), np.int16)
        # offsets[r]..offsets[r + 1] is row r; offsets[0] = 0 always, so offsets has rows + 1
        # used entries.
        self._offsets = np.zeros(max(1, initial_rows) + 1, np.int64)
        self._lengths = np.zeros(max(1, initial_rows), np.int64)
        self._hists = np.zeros((0, nbuckets), np.uint16)
        self._hist_n = 0  # rows whose histogram is computed
        self._n = 0

    def __len__(self) -> int:
        return self._n

    @property
    def n_tokens(self) -> int:
        return int(self._offsets[self._n])

    @property
    def lengths(self) -> np.ndarray:
        """Read-only int64 view of the lengths of the ``len(self)`` stored sequences.

        The view is of the current buffer: take it again after ``add`` rather than keeping it.
        """
        view = self._lengths[: self._n]
        view.flags.writeable = False
        return view

    @property
    def nbytes(self) -> int:
        """Bytes held by the store's arrays, including unused capacity."""
        return self._flat.nbytes + self._offsets.nbytes + self._lengths.nbytes + self._hists.nbytes

    def add(self, tokens: np.ndarray) -> int:
        """Append one sequence (linearize's tokens); returns its row index."""
        if np.ndim(tokens) != 1:
            raise ValueError("a tag sequence is one-dimensional")
        tokens = self.codes.encode(tokens)
        start = int(self._offsets[self._n])
        end = start + tokens.shape[0]
        if end > self._flat.shape[0]:
            # Doubling keeps appends amortized O(len(tokens)): each token is copied O(1) times.
            cap = self._flat.shape[0]
            while cap < end:
                cap *= 2
            grown = np.empty(cap, np.int16)
            grown[:start] = self._flat[:start]
            self._flat = grown
        if self._n + 1 > self._lengths.shape[0]:
            rows = 2 * self._lengths.shape[0]
            offsets = np.zeros(rows + 1, np.int64)
            offsets[: self._n + 1] = self._offsets[: self._n + 1]
            self._offsets = offsets
            lengths = np.zeros(rows, np.int64)
            lengths[: self._n] = self._lengths[: self._n]
            self._lengths = lengths
        self._flat[start:end] = tokens
        self._offsets[self._n + 1] = end
        self._lengths[self._n] = tokens.shape[0]
        row = self._n
        self._n += 1
        return row

    def histograms(self) -> np.ndarray:
        """The histograms of every stored row, computing those added since the last call."""
        # _n is read before the arrays: add() fills a row (growing the arrays first) before it
        # counts it, so the arrays read next hold at least the rows counted here.
        n = self._n
        if self._hist_n < n:
            flat, offsets = self._flat, self._offsets
            if n > self._hists.shape[0]:
                hists = np.zeros((max(n, 2 * self._hists.shape[0]), self.nbuckets), np.uint16)
                hists[: self._hist_n] = self._hists[: self._hist_n]
                self._hists = hists
            for row in range(self._hist_n, n):
                self._hists[row] = _capped(histogram(flat[offsets[row] : offsets[row + 1]], self.nbuckets))
            self._hist_n = n
        return self._hists

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(flat, offsets)`` of the current buffers, for other batched kernels over the rows."""
        return self._flat, self._offsets[: self._n + 1]

    def encode(self, query: np.ndarray) -> np.ndarray:
        """``query`` (linearize's tokens) in this store's codes, to compare with its rows."""
        return np.ascontiguousarray(self.codes.encode(query, assign=False))

    def tokens(self, row: int) -> np.ndarray:
        """Read-only view of stored sequence ``row``, in the store's codes."""
        if not 0 <= row < self._n:
            raise IndexError(row)
        view = self._flat[self._offsets[row] : self._offsets[row + 1]]
        view.flags.writeable = False
        return view

    def histogram(self, row: int) -> np.ndarray:
        """Read-only view of the histogram of stored sequence ``row``."""
        if not 0 <= row < self._n:
            raise IndexError(row)
        view = self.histograms()[row]
        view.flags.writeable = False
        return view

    def query_histogram(self, query: np.ndarray, *, encoded: bool = False) -> np.ndarray:
        """The histogram of a sequence to compare with the stored ones (this store's buckets)."""
        return _capped(histogram(query if encoded else self.encode(query), self.nbuckets))

    def lower_bounds(self, query: np.ndarray, rows: np.ndarray, *, encoded: bool = False) -> np.ndarray:
        """Exact lower bound (matchers.structure.edit_distance.lower_bound) of ``query``'s distance to each row."""
        query = np.ascontiguousarray(query) if encoded else self.encode(query)
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        if rows.size and (rows.min() < 0 or rows.max() >= self._n):
            raise IndexError("row out of range")
        return batch_lower_bounds(
            query.shape[0], self.query_histogram(query, encoded=True), self._offsets, self.histograms(), rows
        )

    def distances(
        self, query: np.ndarray, rows: np.ndarray, limits: np.ndarray | int, *, encoded: bool = False
    ) -> np.ndarray:
        """Distance of ``query`` to each of ``rows``, or a value > that row's limit (int32).

        ``limits`` is one scaled limit per row, or one for all.  The query histogram is
        computed once for the whole batch.  ``encoded``: ``query`` is in this store's codes (a
        row of a store of the same site).
        """
        query = np.ascontiguousarray(query) if encoded else self.encode(query)
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        if rows.size and (rows.min() < 0 or rows.max() >= self._n):
            # The kernel does not bounds-check; a bad row would read garbage, not raise.
            raise IndexError("row out of range")
        if np.ndim(limits) == 0:
            lim = np.full(rows.shape[0], limits, np.int32)
        else:
            lim = np.ascontiguousarray(limits, dtype=np.int32)
            if lim.shape != rows.shape:
                raise ValueError("limits must be a scalar or match rows")
        if rows.shape[0] == 0:
            return np.empty(0, np.int32)
        kernel = serial_distances if rows.shape[0] < _PARALLEL_ROWS else batch_distances
        return kernel(
            query,
            self.query_histogram(query, encoded=True),
            self._flat,
            self._offsets,
            self.histograms(),
            rows,
            lim,
        )
