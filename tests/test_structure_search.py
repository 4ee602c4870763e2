"""The structure filter's fused search of one language's candidates gives exactly what the
thresholds, the records' limits, the best-k search and the narrowing give as separate numpy steps."""

from __future__ import annotations

import numpy as np
import pytest

from matchers.page.linearize import tag_code
from matchers.structure.best_k_search import best_k_search, search_candidates, search_candidates_held
from matchers.structure.best_structure import pruning_limits
from matchers.structure.chunk_correlation import MAX_CELLS
from matchers.structure.edit_distance import SCALE
from matchers.structure.structure_threshold import longer_length, scaled_limits, similarity
from matchers.structure.tag_store import TagSequenceStore


def _stepwise(store, query, rows, ratio, min_corr, keep, best_col, margin):  # noqa: ANN001, ANN202
    """The same search as separate numpy steps around the best-k kernel."""
    other_len = store.lengths[rows]
    limits = scaled_limits(len(query), other_len, ratio)
    search = limits.astype(np.int64)
    use_margin = best_col is not None
    if use_margin:
        best = np.zeros(len(rows))
        known = rows < len(best_col)
        best[known] = best_col[rows[known]]
        search = np.minimum(search, pruning_limits(best, longer_length(len(query), other_len), margin, SCALE))
    q = store.encode(query)
    flat, offsets = store.arrays()
    dist, corr, chunks, good = best_k_search(
        q, store.query_histogram(q, encoded=True), flat, offsets, store.histograms(), rows, other_len, search,
        min_corr, keep, use_margin, margin if use_margin else 0.0, MAX_CELLS,
    )
    known = dist >= 0
    structure = np.where(known, similarity(np.maximum(dist, 0), len(query), other_len), 0.0)
    if np.count_nonzero(good) > keep:
        top = np.flatnonzero(good)[np.argsort(-structure[good], kind="stable")][:keep]
        good = np.zeros(len(rows), dtype=bool)
        good[top] = True
    pos = np.flatnonzero(good)
    return pos, (np.where(known, dist / SCALE, np.nan)[pos], (limits / SCALE)[pos], structure[pos], corr[pos],
                 chunks[pos])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_candidates_equals_the_steps(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tags = [tag_code(t) for t in ("div", "p", "a", "em", "li", "h2")] + [tag_code("p", True), tag_code("div", True)]
    base = [int(x) for x in rng.choice(tags, 50)]

    def variant() -> np.ndarray:
        seq = [t if rng.random() > 0.08 else int(rng.choice(tags)) for t in base]
        for _ in range(int(rng.integers(2, 12))):
            seq.insert(int(rng.integers(0, len(seq))), int(rng.integers(1, 40)))
        return np.array(seq[: int(rng.integers(35, len(seq) + 1))], dtype=np.int32)

    store = TagSequenceStore()
    for _ in range(400):
        store.add(variant())
    compared = kept_some = pruned = 0
    for _ in range(60):
        query = variant()
        rows = np.sort(rng.choice(len(store), int(rng.integers(1, 400)), replace=False)).astype(np.int64)
        keep = int(rng.integers(1, 6))
        margin = float(rng.choice([0.0, 0.02, 0.1]))
        # a record shorter than the store: its later rows know nothing
        best_col = rng.uniform(0.5, 1.0, int(rng.integers(0, len(store)))) * (rng.random(1) < 0.7)
        for record in (None, best_col):
            want_pos, want = _stepwise(store, query, rows, 0.3, 0.5, keep, record, margin)
            q = store.encode(query)
            flat, offsets = store.arrays()
            # The kernel that lets the GIL go and the one that holds it, in turn.
            search = (search_candidates, search_candidates_held)[compared % 2]
            got_pos, *got = search(
                q, store.query_histogram(q, encoded=True), flat, offsets, store.histograms(), store.lengths, rows,
                0.3, record if record is not None else np.zeros(0), record is not None, margin, 0.5, keep, MAX_CELLS,
            )
            assert got_pos.tolist() == want_pos.tolist()
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)
            compared += 1
            kept_some += len(got_pos) > 0
            if record is not None:
                pruned += len(got_pos) < len(_stepwise(store, query, rows, 0.3, 0.5, keep, None, margin)[0])
    assert compared == 120 and kept_some > 30 and pruned > 0
