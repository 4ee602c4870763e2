"""The E-step's distinct word-pair keys (matchers.content.estep.unique_keys) are numpy's."""

from __future__ import annotations

import numpy as np
import pytest

from matchers.content.estep import _pair_keys, unique_keys


def _numpy(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    out, inverse = np.unique(keys, return_inverse=True)
    return out, inverse.ravel()


@pytest.mark.parametrize("seed", range(20))
def test_random_keys_match_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5000))
    e = rng.integers(0, int(rng.integers(1, 800)), n).astype(np.int64)
    f = rng.integers(0, int(rng.integers(1, 800)), n).astype(np.int64)
    keys = (e << 32) | f
    got, want = unique_keys(keys), _numpy(keys)
    assert np.array_equal(got[0], want[0])
    assert np.array_equal(got[1], want[1])
    assert np.array_equal(got[0][got[1]], keys)


def test_sentence_pair_keys_match_numpy() -> None:
    rng = np.random.default_rng(7)
    lens1, lens2 = rng.integers(1, 25, 300), rng.integers(1, 25, 300)
    ids1 = np.minimum(rng.zipf(1.3, int(lens1.sum())), 5000).astype(np.int64)
    ids2 = np.minimum(rng.zipf(1.3, int(lens2.sum())), 5000).astype(np.int64)
    off1 = np.concatenate([[0], np.cumsum(lens1)]).astype(np.int64)
    off2 = np.concatenate([[0], np.cumsum(lens2)]).astype(np.int64)
    keys = _pair_keys(ids1, off1, ids2, off2)
    got, want = unique_keys(keys), _numpy(keys)
    assert len(got[0]) < len(keys)  # the repeated pairs the bucketing is for
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_empty_single_sparse_and_negative_keys() -> None:
    for keys in (np.zeros(0, np.int64), np.array([5 << 32 | 7], np.int64)):
        got, want = unique_keys(keys), _numpy(keys)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    # Ids far beyond the number of keys take numpy's sort (no marker array of 2**32 entries).
    keys = np.array([(2**30) << 32 | (2**32 - 1), 3, (2**30) << 32 | (2**32 - 1), 1 << 32], np.int64)
    got, want = unique_keys(keys), _numpy(keys)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    keys = np.array([5, -3, 5, 1 << 32, -3], np.int64)
    got, want = unique_keys(keys), _numpy(keys)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
