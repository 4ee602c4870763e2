"""Edit-distance kernels against the pure-Python reference, the lower bound, the batch and the store."""

from __future__ import annotations

import numpy as np
import pytest

from matchers.page.linearize import tag_code
from matchers.structure.edit_distance import (
    SCALE,
    banded_distance,
    batch_distances,
    full_distance,
    histogram,
    lower_bound,
    reference_distance,
    serial_distances,
)
from matchers.structure.tag_store import TagSequenceStore

# Real tag codes, so the histogram hashes what the crawler will hash.  A small vocabulary makes
# random sequences share tags, which is what exercises matches in the DP.
_TAGS = np.array(
    [tag_code(t, end=e) for t in ("p", "div", "a", "li", "td", "span") for e in (False, True)],
    dtype=np.int32,
)
P, END_P = tag_code("p"), tag_code("p", end=True)


def _random_seq(rng: np.random.Generator, n: int) -> np.ndarray:
    tags = rng.choice(_TAGS, n)
    texts = rng.integers(1, 40, n, dtype=np.int32)
    return np.where(rng.random(n) < 0.35, texts, tags).astype(np.int32)


def _mutate(rng: np.random.Generator, seq: np.ndarray, edits: int) -> np.ndarray:
    out = list(seq)
    for _ in range(edits):
        op = rng.integers(3)
        pos = int(rng.integers(len(out) + 1))
        tok = int(_random_seq(rng, 1)[0])
        if op == 0 or not out:
            out.insert(pos, tok)
        elif op == 1:
            del out[min(pos, len(out) - 1)]
        else:
            out[min(pos, len(out) - 1)] = tok
    return np.array(out, dtype=np.int32)


def _pairs(seed: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Unrelated, identical, near-identical and empty pairs, lengths 0..60."""
    rng = np.random.default_rng(seed)
    pairs = [
        (np.zeros(0, np.int32), np.zeros(0, np.int32)),
        (np.zeros(0, np.int32), _random_seq(rng, 7)),
        (_random_seq(rng, 60), np.zeros(0, np.int32)),
    ]
    while len(pairs) < count:
        a = _random_seq(rng, int(rng.integers(0, 61)))
        kind = len(pairs) % 3
        if kind == 0:
            b = _random_seq(rng, int(rng.integers(0, 61)))
        elif kind == 1:
            b = a.copy() if len(pairs) % 2 else _mutate(rng, a, 0)
        else:
            b = _mutate(rng, a, int(rng.integers(1, 12)))[:60]
        pairs.append((a, b))
    return pairs


PAIRS = _pairs(seed=20240601, count=360)
TRUTH = [reference_distance(a, b) for a, b in PAIRS]


def _check_banded(got: int, true: int, limit: int) -> None:
    if true <= limit:
        assert got == true
    else:
        assert got > limit


def test_hand_computed_examples() -> None:
    a = np.array([P, 5, END_P], np.int32)
    b = np.array([P, 8, END_P], np.int32)
    assert reference_distance(a, b) == 3
    assert full_distance(a, b) == 3
    assert banded_distance(a, b, 3) == 3
    assert banded_distance(a, b, 2) > 2
    five, thirty = np.array([5], np.int32), np.array([30], np.int32)
    assert reference_distance(five, thirty) == full_distance(five, thirty) == SCALE
    # A tag never substitutes cheaply for a text, whatever its code.
    assert full_distance(np.array([P], np.int32), np.array([1], np.int32)) == SCALE
    # Delete <p> and the text, keep </p>: two deletions.
    assert full_distance(a, np.array([END_P], np.int32)) == 2 * SCALE
    assert full_distance(np.zeros(0, np.int32), a) == 3 * SCALE
    assert banded_distance(a, a, 0) == 0


def test_lower_bound_counts_the_text_bucket() -> None:
    # [<x>] vs [<y>, <text_3>]: the tag buckets alone only prove 10, the text bucket proves 20.
    x, y = tag_code("p"), tag_code("div")
    hx, hy = histogram(np.array([x], np.int32)), histogram(np.array([y], np.int32))
    assert not np.array_equal(hx[1:], hy[1:]), "test needs the two tags in different buckets"
    a = np.array([x], np.int32)
    b = np.array([y, 3], np.int32)
    ha, hb = histogram(a), histogram(b)
    assert lower_bound(1, 2, ha[1:], hb[1:]) == 10
    assert lower_bound(1, 2, ha, hb) == 20 == reference_distance(a, b)


def test_full_matches_reference() -> None:
    for (a, b), true in zip(PAIRS, TRUTH, strict=True):
        assert full_distance(a, b) == true
        assert full_distance(b, a) == true


def test_banded_exact_within_limit_and_above_it_otherwise() -> None:
    rng = np.random.default_rng(7)
    for (a, b), true in zip(PAIRS, TRUTH, strict=True):
        limits = {0, true, true + 1, max(true - 1, 0), true + 37, 10**9}
        limits.add(int(rng.integers(0, true + 1)))
        limits.add(int(rng.integers(0, 2 * true + 20)))
        for limit in limits:
            _check_banded(banded_distance(a, b, limit), true, limit)
            _check_banded(banded_distance(b, a, limit), true, limit)


def test_banded_negative_limit_is_exceeded() -> None:
    a = np.array([P], np.int32)
    assert banded_distance(a, a, -1) > -1


def test_lower_bound_never_exceeds_distance() -> None:
    tight = 0
    for (a, b), true in zip(PAIRS, TRUTH, strict=True):
        # Few buckets force hash collisions, which must only weaken the bound.
        for nb in (2, 5, 64):
            ha, hb = histogram(a, nb), histogram(b, nb)
            lb = lower_bound(len(a), len(b), ha, hb)
            assert lb <= true
            assert lower_bound(len(a), len(b), ha[1:], hb[1:]) <= lb
            assert lb >= SCALE * abs(len(a) - len(b))
        tight += lb == true
    # The bound must be doing something, not returning 0.
    assert tight > len(PAIRS) // 10


def test_histogram_buckets() -> None:
    seq = np.array([P, 3, END_P, 7, P], np.int32)
    h = histogram(seq, 16)
    assert h.dtype == np.int32 and h.shape == (16,)
    assert h[0] == 2 and h.sum() == 5
    assert h[1 + (-P - 1) % 15] >= 2


def test_long_pair_banded_matches_full() -> None:
    rng = np.random.default_rng(3)
    a = _random_seq(rng, 2500)
    b = _mutate(rng, a, 150)
    true = full_distance(a, b)
    assert 0 < true < SCALE * 150
    for limit in (true - 1, true, true + 500, SCALE * 500):
        _check_banded(banded_distance(a, b, limit), true, limit)
    assert banded_distance(a, _random_seq(rng, 2500), SCALE * 250) > SCALE * 250


def _store(seqs: list[np.ndarray], **kw: int) -> TagSequenceStore:
    store = TagSequenceStore(**kw)
    for i, s in enumerate(seqs):
        assert store.add(s) == i
    return store


def test_batch_equals_per_pair() -> None:
    rng = np.random.default_rng(11)
    seqs = [a for a, _ in PAIRS[:80]] + [b for _, b in PAIRS[:80]]
    store = _store(seqs)
    for q in range(0, 40, 3):
        query = seqs[q]
        rows = rng.integers(0, len(seqs), 120).astype(np.int64)
        limits = rng.integers(0, 400, rows.shape[0]).astype(np.int32)
        got = store.distances(query, rows, limits)
        assert got.dtype == np.int32 and got.shape == rows.shape
        for r, lim, g in zip(rows, limits, got, strict=True):
            assert g == banded_distance(seqs[r], query, int(lim))
            _check_banded(int(g), full_distance(seqs[r], query), int(lim))
        # Calling the kernel directly with the documented layout (the store's codes) gives the
        # same answer.
        coded = [store.tokens(i) for i in range(len(seqs))]
        flat = np.concatenate(coded)
        offsets = np.concatenate([[0], np.cumsum([len(s) for s in seqs])]).astype(np.int64)
        hists = np.stack([histogram(s) for s in coded])
        q = store.encode(query)
        direct = batch_distances(q, histogram(q), flat, offsets, hists, rows, limits)
        assert np.array_equal(direct, got)
        # The serial kernel (calls of one row) answers as the parallel one, alone and batched.
        assert np.array_equal(serial_distances(q, histogram(q), flat, offsets, hists, rows, limits), got)
        for k in range(0, len(rows), 17):
            one = store.distances(query, rows[k:k + 1], limits[k:k + 1])
            assert one.tolist() == [got[k]]
    # The largest int32 limit asks for every exact distance.
    rows = np.arange(len(seqs), dtype=np.int64)
    exact = store.distances(seqs[1], rows, 2**31 - 1)
    assert np.array_equal(exact, [full_distance(s, seqs[1]) for s in seqs])
    # A scalar limit is broadcast; an empty batch is empty.
    assert np.array_equal(
        store.distances(seqs[0], np.array([0, 1]), 50), store.distances(seqs[0], [0, 1], [50, 50])
    )
    assert store.distances(seqs[0], np.zeros(0, np.int64), 10).shape == (0,)


def test_store_growth_keeps_rows() -> None:
    rng = np.random.default_rng(5)
    seqs = [_random_seq(rng, int(rng.integers(0, 60))) for _ in range(300)]
    store = TagSequenceStore(initial_tokens=8, initial_rows=2)
    reallocations = 0
    for i, s in enumerate(seqs):
        before = store._flat
        assert store.add(s) == i
        reallocations += store._flat is not before
        if i % 37 == 0:
            # Earlier rows survive every growth so far.
            assert all(np.array_equal(store.tokens(j), store.encode(seqs[j])) for j in range(i + 1))
    # Doubling: a handful of reallocations, not one per add.
    assert 3 <= reallocations <= 12
    assert len(store) == 300
    assert store.n_tokens == sum(len(s) for s in seqs)
    assert np.array_equal(store.lengths, [len(s) for s in seqs])
    for i, s in enumerate(seqs):
        assert np.array_equal(store.tokens(i), store.encode(s))
        assert np.array_equal(store.histogram(i), histogram(store.encode(s)))
        assert np.array_equal(np.sign(store.tokens(i)), np.sign(s))  # texts stay texts, tags tags
    # At most twice the used size: 2 bytes a token, 8 + 8 + 2 * 64 bytes a row.
    assert store.nbytes <= 2 * (2 * store.n_tokens + 300 * (8 + 8 + 2 * 64)) + 8
    with pytest.raises(IndexError):
        store.tokens(300)
    with pytest.raises(IndexError):
        store.distances(seqs[0], [300], 10)
    view = store.tokens(0)
    with pytest.raises(ValueError):
        view[:] = 0


def test_store_histograms_are_computed_when_a_comparison_needs_them() -> None:
    rng = np.random.default_rng(6)
    seqs = [_random_seq(rng, int(rng.integers(1, 60))) for _ in range(50)]
    store = TagSequenceStore(initial_rows=4)
    for s in seqs[:30]:
        store.add(s)
    # A store only read for its sequences (the crawl process's copy) holds no histograms.
    assert store._hists.nbytes == 0
    want = [int(d) for d in store.distances(seqs[0], np.arange(30), 1000)]
    assert store.histograms().shape[0] >= 30
    for s in seqs[30:]:  # rows added after the first comparison get theirs at the next one
        store.add(s)
    got = store.distances(seqs[0], np.arange(50), 1000)
    assert got[:30].tolist() == want and got[0] == 0
    for i, s in enumerate(seqs):
        assert np.array_equal(store.histogram(i), histogram(store.encode(s)))
        assert np.array_equal(store.histograms()[i], histogram(store.encode(s)))


def test_store_lower_bounds_match_per_pair_bound() -> None:
    store = TagSequenceStore(nbuckets=16, initial_tokens=8, initial_rows=2)
    rows = [a for a, _ in PAIRS[:80]]
    for seq in rows:
        store.add(seq)
    query = PAIRS[5][1]
    picked = np.array([3, 0, 79, 3, 41], dtype=np.int64)
    got = store.lower_bounds(query, picked)
    qh = histogram(store.encode(query), 16)
    want = [lower_bound(len(rows[r]), len(query), histogram(store.tokens(r), 16), qh) for r in picked]
    assert got.tolist() == want
    assert np.all(got <= [reference_distance(rows[r], query) for r in picked])
    with pytest.raises(IndexError):
        store.lower_bounds(query, np.array([80]))


def test_store_histograms_are_capped_and_the_bound_stays_below_the_distance() -> None:
    # 70,000 and 70,010 one-word texts: ten insertions apart, both beyond a uint16 count.
    store = TagSequenceStore()
    store.add(np.ones(70_000, np.int32))
    query = np.ones(70_010, np.int32)
    assert store.histograms().dtype == np.uint16
    assert store.histogram(0)[0] == np.iinfo(np.uint16).max
    assert store.query_histogram(query)[0] == np.iinfo(np.uint16).max
    bound = int(store.lower_bounds(query, np.array([0]))[0])
    assert bound == SCALE * 10  # the length difference still counts in full
    assert bound <= int(store.distances(query, np.array([0]), 10**9)[0]) == SCALE * 10
