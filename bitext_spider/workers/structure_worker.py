"""The structure worker process's side (pipelines.structure_filter owns the process).

The worker keeps its own copy of each site's tag sequences and best-so-far records
(:class:`SiteTags`): each request carries the rows the crawl process registered since the
previous one, in registration order, and one worker answers the requests one at a time in the
order they were sent, so it computes what a thread of the crawl process would.

Kept apart from the stage so that the worker imports only what the filter needs: unpickling a
call imports the module of its function, and the stage's imports (Scrapy, the settings, the
store) took over a second of the worker's start.
"""

from __future__ import annotations

import time
from typing import Any

import numba
import numpy as np

from matchers.site.page_index import CandidateSet
from matchers.structure.best_structure import BestStructure
from matchers.structure.structure_filter import structure_filter
from matchers.structure.tag_codes import Encoded
from matchers.structure.tag_store import TagSequenceStore


def one_numba_thread() -> None:
    # The reactor thread keeps one core busy; a two-thread prange would then wait on its
    # descheduled worker at every batch (docs/benchmarks.md), so the crawl's kernels run on
    # one thread, beside the reactor.
    numba.set_num_threads(1)


class LanguageTags:
    """What the structure filter reads of one language's index: tag sequences, best-so-far records."""

    def __init__(self) -> None:
        # The rows and queries come in the crawl process's codes for the site.
        self.tags = TagSequenceStore(codes=Encoded())
        self.best_structure = BestStructure()


class SiteTags:
    """The worker's copy of a site's index, as far as :func:`structure_filter` reads it."""

    def __init__(self) -> None:
        self.languages: dict[str, LanguageTags] = {}

    def index(self, lang: str) -> LanguageTags:
        return self.languages[lang]

    def add_rows(self, new_rows: dict[str, tuple[int, list[np.ndarray]]]) -> None:
        for lang, (start, sequences) in new_rows.items():
            tags = self.languages.setdefault(lang, LanguageTags()).tags
            if start != len(tags):
                # Rows are numbered by the crawl process; a gap would pair the wrong pages.
                raise RuntimeError(f"structure worker out of step: {lang} row {start}, has {len(tags)}")
            for tokens in sequences:
                tags.add(tokens)


# The worker process's sites (a worker's initializer can only leave state at module level).  It is
# set in the worker process only, never in the crawl process.
_worker_sites: dict[str, SiteTags] | None = None

Request = tuple[str, dict[str, tuple[int, list[np.ndarray]]], np.ndarray, list[tuple[str, np.ndarray]]]
Answer = tuple[float, list[tuple[np.ndarray, dict[str, np.ndarray]]]]


def init_worker() -> None:
    global _worker_sites
    _worker_sites = {}
    one_numba_thread()


def filter_in_worker(request: Request, params: tuple[Any, ...], kwargs: dict[str, Any]) -> Answer:
    """:func:`structure_filter` on the worker's copy of the site: per candidate set, the positions
    of the rows kept and their scores (the size scores stay in the crawl process)."""
    assert _worker_sites is not None, "the worker initializer did not run"
    t0 = time.thread_time()
    site, new_rows, tokens, wanted = request
    state = _worker_sites.setdefault(site, SiteTags())
    state.add_rows(new_rows)
    candidates = [CandidateSet(lang, rows) for lang, rows in wanted]
    structure_filter(state, tokens, candidates, *params, **kwargs)  # type: ignore[arg-type]
    answers = [(positions(rows, c.rows), c.scores) for (_, rows), c in zip(wanted, candidates, strict=True)]
    return time.thread_time() - t0, answers


def positions(rows: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Where the ``kept`` rows are in ``rows`` (kept is a subsequence of rows)."""
    if len(rows) < 2 or bool(np.all(rows[1:] > rows[:-1])):
        return np.searchsorted(rows, kept)  # the usual case: rows in registration order
    return np.flatnonzero(np.isin(rows, kept, assume_unique=True))
