"""Cost of merging translation models (matchers/content/translation_model.py, bitext_spider/store/model_registry.py).

Synthetic models of N entries over V words per side (keys drawn at random, Zipf-like counts),
each built by :meth:`TranslationModel.add_counts`.  Measured, best of ``--repeat`` runs:

* ``save_plain``: what a save costs when no other process wrote: ``to_bytes`` of the N-entry
  model;
* ``save_merge``: a save that finds another process's training: ``from_bytes`` of the stored
  N-entry model, ``add_counts`` of a pending table of P entries (words in another id order),
  ``to_bytes`` of the sum (the database round trip excluded);
* ``pending``: :meth:`TranslationModel.pending_counts` of a model whose pending table has P entries;
* ``from_bytes``: loading the stored model, part of ``save_merge``;
* ``sqlite_write``: the compare-and-set write of the snapshot into a SQLite file
  (:meth:`Store.replace_model`), the database part of either save;
* ``merge_whole``: :meth:`TranslationModel.merge` of two N-entry models whose ids differ
  (``add_counts`` of the other's :meth:`counts`, then a compaction).

JIT compilation is excluded (a small warm-up first).

    .venv/bin/python benchmarks/bench_model_merge.py [--entries 1000000,4000000] [--vocab 200000]
        [--pending 50000] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bitext_spider.store.database import Store  # noqa: E402
from bitext_spider.store.records import ModelRecord
from matchers.content.translation_model import ModelCounts, TranslationModel  # noqa: E402


def synthetic_counts(rng: np.random.Generator, n: int, vocab: int, perm: bool) -> ModelCounts:
    """``n`` distinct entries over ``vocab`` words per side; ``perm``: words in another order."""
    w1 = np.array([f"s{i}" for i in range(vocab)], dtype=object)
    w2 = np.array([f"t{i}" for i in range(vocab)], dtype=object)
    if perm:
        w1, w2 = w1[rng.permutation(vocab)], w2[rng.permutation(vocab)]
    words1, words2 = ["\x00NULL", *w1.tolist()], ["\x00NULL", *w2.tolist()]
    # Zipf-like rows and columns, as in text: a few words co-occur with many.
    p = 1.0 / np.arange(1, vocab + 2)
    p /= p.sum()
    keys = np.unique((rng.choice(vocab + 1, 2 * n, p=p).astype(np.int64) << 32)
                     | rng.choice(vocab + 1, 2 * n, p=p).astype(np.int64))
    keys = np.sort(rng.choice(keys, min(n, len(keys)), replace=False))
    c21 = rng.exponential(0.5, len(keys)) + 0.01
    c12 = rng.exponential(0.5, len(keys)) + 0.01
    e, f = keys >> 32, keys & 0xFFFFFFFF
    uni1 = np.bincount(e, minlength=vocab + 1).astype(np.float64)
    uni2 = np.bincount(f, minlength=vocab + 1).astype(np.float64)
    uni1[0] = uni2[0] = 0.0
    return ModelCounts("xa", "xb", words1, words2, keys, c21, c12,
                       np.bincount(e, c21, vocab + 1), np.bincount(f, c12, vocab + 1), uni1, uni2, 1000, 10)


def model_of(counts: ModelCounts) -> TranslationModel:
    m = TranslationModel("xa", "xb", max_entries=10**9)
    m.add_counts(counts)
    m.prune()  # one main table, as a long-trained model has
    return m


def best(fn: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None) -> float:
    """Best time of ``fn`` (or ``fn(setup())``, the setup not timed)."""
    times = []
    for _ in range(repeat):
        arg = setup() if setup is not None else None
        t0 = time.perf_counter()
        fn() if setup is None else fn(arg)  # type: ignore[call-arg]
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(rng: np.random.Generator, n: int, vocab: int, pending_n: int, repeat: int) -> dict[str, float]:
    stored = model_of(synthetic_counts(rng, n, vocab, False))
    other = model_of(synthetic_counts(rng, n, vocab, True))
    snapshot = stored.to_bytes()
    pending = synthetic_counts(rng, pending_n, vocab // 10, True)
    # A model with P pending entries: trained by update() on sentence pairs that make P entries.
    trained = TranslationModel.from_bytes(snapshot)
    words1, words2 = [f"s{i}" for i in range(2000)], [f"t{i}" for i in range(2000)]
    while len(trained._pending_table()[0]) < pending_n:
        trained.update([(rng.choice(words1, 15).tolist(), rng.choice(words2, 15).tolist()) for _ in range(50)])

    def save_merge() -> None:
        m = TranslationModel.from_bytes(snapshot)
        m.add_counts(pending)
        m.to_bytes()

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{tmp}/bench.db")
        version = [0]

        def write() -> None:
            # Each write expects the version the last one left: always the compare-and-set's
            # successful path.
            expected = None if version[0] == 0 else (version[0], version[0])
            version[0] += 1
            assert store.replace_model(ModelRecord("xa", "xb", version[0], version[0], snapshot), expected)

        sqlite_write = best(write, repeat)
        store.close()
    return {
        "entries": stored.num_entries, "vocab": vocab, "pending": pending_n,
        "snapshot_mb": round(len(snapshot) / 1e6, 1),
        "save_plain_s": round(best(stored.to_bytes, repeat), 3),
        "save_merge_s": round(best(save_merge, repeat), 3),
        "from_bytes_s": round(best(lambda: TranslationModel.from_bytes(snapshot), repeat), 3),
        "sqlite_write_s": round(sqlite_write, 3),
        "pending_s": round(best(trained.pending_counts, repeat), 3),
        "merge_whole_s": round(best(lambda m: m.merge(other), repeat,
                                    lambda: TranslationModel.from_bytes(snapshot)), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entries", default="1000000,4000000")
    ap.add_argument("--vocab", type=int, default=200_000)
    ap.add_argument("--pending", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    warm = model_of(synthetic_counts(rng, 1000, 100, False))
    warm.merge(model_of(synthetic_counts(rng, 1000, 100, True)))
    warm.update([(["s1", "s2"], ["t1"])])
    warm.pending_counts()

    rows = []
    for n in [int(x) for x in args.entries.split(",")]:
        row = measure(rng, n, args.vocab, args.pending, args.repeat)
        rows.append(row)
        if not args.json:
            print(f"N={row['entries']:>9,} V={args.vocab:,} P={args.pending:,} snapshot {row['snapshot_mb']} MB: "
                  f"save (no other writer) {row['save_plain_s']} s, save with merge {row['save_merge_s']} s "
                  f"(from_bytes {row['from_bytes_s']} s), SQLite write {row['sqlite_write_s']} s, pending_counts {row['pending_s']} s, "
                  f"merge of two whole models {row['merge_whole_s']} s")
    if args.json:
        print(json.dumps({"machine": platform.processor() or platform.machine(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
