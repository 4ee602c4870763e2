"""The best structure similarity each indexed page has reached so far, per other language.

Used by the structure filter (matchers.structure.structure_filter) to skip work that cannot change the
outcome.  Tomás et al., *WebMining*, section 2.2, compare every new page with every earlier one;
the cost grows with the square of the site.  But a page pairs with at most one page per other
language, the best first (matchers.site.one_to_one), so an earlier page that already
has a candidate of similarity ``s`` in the new page's language is only worth comparing under the
distance that would bring the new page within ``margin`` of ``s``:

    distance <= (1 - s + margin) * T       (T = tokens of the longer sequence)

The structure filter bounds the new page's own search the same way: once one of its candidates
has passed with similarity ``s``, only candidates within ``margin`` of ``s`` are compared and kept.

The margin keeps the near-ties, which the decision at close may still order the other way on
content, link or image evidence.  On the development site and the generated one, no final pair
had a lower structure similarity than its older page's best candidate at the time its newer page
arrived (docs/design.md), so the margin is a safety allowance, not a tuned value.

The record belongs to the structure filter's single thread: only that thread reads or writes it,
in the order the pages are filtered, so the outcome does not depend on thread timing.  Rows
registered since the record last grew read as 0 (nothing known: no pruning).
"""

from __future__ import annotations

import numpy as np

_EMPTY = np.zeros(0)


class BestStructure:
    """Per row of one language's index: the best similarity with a page of each other language."""

    def __init__(self) -> None:
        self._best: dict[str, np.ndarray] = {}

    def get(self, other_lang: str, rows: np.ndarray) -> np.ndarray:
        """Best similarity of ``rows`` with a page of ``other_lang`` (0 where none is known)."""
        col = self._best.get(other_lang, np.zeros(0))
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros(len(rows))
        known = rows < len(col)
        out[known] = col[rows[known]]
        return out

    def column(self, other_lang: str) -> np.ndarray:
        """The record by row (rows past its end know nothing); read-only, for kernels."""
        col = self._best.get(other_lang, _EMPTY)
        view = col[:]
        view.flags.writeable = False
        return view

    def raise_to(self, other_lang: str, rows: np.ndarray, values: np.ndarray) -> None:
        """Record ``values`` for ``rows`` where they exceed what is known."""
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return
        col = self._best.get(other_lang)
        need = int(rows.max()) + 1
        if col is None or len(col) < need:
            # Doubling keeps growth amortized O(1) per row.
            grown = np.zeros(max(need, 2 * (0 if col is None else len(col)), 256))
            if col is not None:
                grown[: len(col)] = col
            col = self._best[other_lang] = grown
        np.maximum.at(col, rows, np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0))


def pruning_limits(best: np.ndarray, longer: np.ndarray, margin: float, scale: int) -> np.ndarray:
    """Scaled distance under which a candidate can still come within ``margin`` of ``best``.

    Rows with nothing known (``best`` 0) get a limit no threshold reaches.
    """
    lim = np.floor((1.0 - best + margin) * longer * scale + 1e-9)
    return np.where(best > 0, lim, np.iinfo(np.int32).max).astype(np.int64)
