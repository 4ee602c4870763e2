"""Pairs per second of the tag-sequence edit-distance kernels, side by side on the same pairs.

Measured:

* ``banded``: :func:`matchers.structure.edit_distance.batch_distances` (histogram lower bound, then the
  banded DP with early exit), one query page against its candidates, as the crawl calls it;
* ``full``: the full anti-diagonal numba DP, batched the same way (same grouping, same prange),
  so the difference is the algorithm, not the harness;
* ``rapidfuzz``: ``rapidfuzz.distance.Levenshtein.distance`` on the same token lists, unit costs
  only.  It is *not* this metric (no cheap text-text substitution); it is only a speed reference
  for a well-optimized C++ edit distance.

Pairs come from the W3C i18n mirror in ``../shared/data/w3c-i18n/www`` (next to the project) when present:
(a) true translation pairs, the same file stem in two languages (``x.en.html`` / ``x.de.html``),
(b) random cross-file pairs, (c) random cross-file pairs that pass the length check
(``SCALE * |m - n| <= limit``), which is what reaches the kernel after the crawl's size filter.
Without the data, sequences are synthesized.  JIT compilation is excluded (warm-up first).

    .venv/bin/python benchmarks/bench_edit_distance.py [--pairs N] [--threshold F] [--json]

``--rows 1,4,16,64`` measures instead a call with few rows, as the close's decision makes for a
pair the structure filter never compared: microseconds per call of the parallel kernel
(``batch_distances``) and of the serial one (``serial_distances``), with the other cores idle and
with one of them kept busy by a spinning process that the benchmark starts (as the crawl's other
work keeps it).  ``TagSequenceStore.distances`` picks the serial kernel below
``_PARALLEL_ROWS`` rows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numba
import numpy as np
from numba import prange
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DEFAULT_DATA = SHARED / "data" / "w3c-i18n" / "www"
sys.path.insert(0, str(REPO))  # so the script also runs without the editable install

from matchers.structure.edit_distance import (  # noqa: E402
    SCALE,
    batch_distances,
    full_distance,
    lower_bound,
    serial_distances,
)
from matchers.structure.tag_store import TagSequenceStore  # noqa: E402


@numba.njit(nogil=True, cache=True, parallel=True)
def _full_batch(query, flat, offsets, rows):
    # Same shape of call as batch_distances, without bounds or band: the baseline.
    out = np.empty(rows.shape[0], np.int32)
    for k in prange(rows.shape[0]):
        r = rows[k]
        out[k] = full_distance(flat[offsets[r] : offsets[r + 1]], query)
    return out


def load_w3c(root: Path) -> tuple[list[str], list[np.ndarray]]:
    from matchers.page.linearize import linearize

    names, seqs = [], []
    for f in sorted(root.rglob("*.html")):
        names.append(str(f.relative_to(root)))
        seqs.append(linearize(f.read_text(encoding="utf-8", errors="replace")).tokens)
    return names, seqs


def true_pairs_w3c(names: list[str]) -> list[tuple[int, int]]:
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        parent, _, base = name.rpartition("/")
        parts = base.split(".")
        if len(parts) == 3:  # stem.lang.html
            groups[(parent, parts[0])].append(i)
    pairs = []
    for members in groups.values():
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                pairs.append((members[x], members[y]))
    return pairs


def stem_of(name: str) -> str:
    parent, _, base = name.rpartition("/")
    return parent + "/" + base.split(".")[0]


def synthesize(rng: np.random.Generator, n_templates: int = 60, per: int = 6):
    """Template pages with per-language edits, when the W3C mirror is absent."""
    vocab = -rng.integers(1, 1 << 30, 80).astype(np.int64)
    names, seqs = [], []
    for t in range(n_templates):
        n = int(rng.lognormal(5.8, 0.7))
        base = np.where(rng.random(n) < 0.3, rng.integers(1, 40, n), rng.choice(vocab, n))
        for lang in range(per):
            s = base.copy()
            k = max(1, n // 50)
            pos = rng.integers(0, n, k)
            s[pos] = np.where(s[pos] > 0, np.maximum(1, s[pos] + rng.integers(-5, 6, k)), s[pos])
            drop = rng.random(n) < 0.01
            names.append(f"synthetic/t{t}.l{lang}.html")
            seqs.append(s[~drop].astype(np.int32))
    return names, seqs


def limit_for(m: int, n: int, threshold: float) -> int:
    # Threshold in unscaled edit operations relative to the longer page, scaled to the kernel's units.
    return int(SCALE * threshold * max(m, n))


def grouped(pairs: list[tuple[int, int]]) -> list[tuple[int, np.ndarray]]:
    by_q: dict[int, list[int]] = defaultdict(list)
    for q, r in pairs:
        by_q[q].append(r)
    return [(q, np.array(rs, np.int64)) for q, rs in by_q.items()]


def random_pairs(
    rng: np.random.Generator,
    names: list[str],
    seqs: list[np.ndarray],
    count: int,
    threshold: float,
    size_passing: bool,
    batch: int,
) -> list[tuple[int, int]]:
    """`count` pairs of different-stem pages, up to `batch` candidates per query page."""
    stems = [stem_of(x) for x in names]
    lens = np.array([len(s) for s in seqs])
    pairs: list[tuple[int, int]] = []
    tries = 0
    while len(pairs) < count and tries < 200 * count:
        q = int(rng.integers(len(seqs)))
        if size_passing:
            ok = np.flatnonzero(
                (SCALE * np.abs(lens - lens[q]) <= SCALE * threshold * np.maximum(lens, lens[q]))
                & np.array([s != stems[q] for s in stems])
            )
            if ok.size == 0:
                tries += 1
                continue
            cand = rng.choice(ok, min(batch, count - len(pairs), ok.size), replace=False)
        else:
            cand = rng.choice(len(seqs), min(batch, count - len(pairs), len(seqs)), replace=False)
        for r in cand:
            tries += 1
            if stems[int(r)] != stems[q]:
                pairs.append((q, int(r)))
    return pairs


def prepare_set(
    label: str,
    pairs: list[tuple[int, int]],
    seqs: list[np.ndarray],
    store: TagSequenceStore,
    threshold: float,
) -> dict:
    """The callables to time on one pair set, plus the correctness/rejection counts."""
    groups = grouped(pairs)
    lens = store.lengths
    limits = [np.array([limit_for(lens[r], lens[q], threshold) for r in rs], np.int32) for q, rs in groups]
    flat, offsets = store._flat, store._offsets

    def banded() -> list[np.ndarray]:
        return [store.distances(seqs[q], rs, lim) for (q, rs), lim in zip(groups, limits, strict=True)]

    coded = [store.encode(seq) for seq in seqs]  # the store's codes, as its rows are

    def full() -> list[np.ndarray]:
        return [_full_batch(coded[q], flat, offsets, rs) for q, rs in groups]

    lists = [seq.tolist() for seq in seqs]
    left = [lists[r] for q, rs in groups for r in rs]
    right = [lists[q] for q, rs in groups for _ in rs]

    def rapidfuzz_loop() -> list[int]:
        return [Levenshtein.distance(x, y) for x, y in zip(left, right, strict=True)]

    def rapidfuzz_cpdist() -> np.ndarray:
        return process.cpdist(left, right, scorer=Levenshtein.distance, workers=-1)

    got_b, got_f = banded(), full()  # also the JIT warm-up
    within = rejected_bound = rejected_dp = mismatches = tag_only_rejects = 0
    for (q, rs), lim, gb, gf in zip(groups, limits, got_b, got_f, strict=True):
        hq = store.query_histogram(seqs[q])
        for r, li, b, f in zip(rs, lim, gb, gf, strict=True):
            hr = store.histogram(r)
            tag_only_rejects += lower_bound(lens[r], lens[q], hr[1:], hq[1:]) > li
            if f <= li:
                within += 1
                mismatches += b != f
            else:
                mismatches += b <= li
                if lower_bound(lens[r], lens[q], hr, hq) > li:
                    rejected_bound += 1
                else:
                    rejected_dp += 1
    return {
        "set": label,
        "pairs": len(pairs),
        "queries": len(groups),
        "mean_len": float(np.mean([(lens[q] + lens[r]) / 2 for q, rs in groups for r in rs])),
        "cells": int(sum(int(lens[q]) * int(lens[r]) for q, rs in groups for r in rs)),
        "within_limit": int(within),
        "rejected_by_bound": int(rejected_bound),
        "rejected_by_tag_only_bound": int(tag_only_rejects),
        "rejected_by_banded_dp": int(rejected_dp),
        "mismatches_vs_full": int(mismatches),
        "_fns": {
            "banded": banded,
            "full": full,
            "rapidfuzz": rapidfuzz_loop,
            "rapidfuzz_cpdist": rapidfuzz_cpdist,
        },
    }


def measure(sets: list[dict], threads: int, repeats: int) -> None:
    """Best-of-``repeats`` seconds per method, methods interleaved within each repeat.

    The machine may be shared, so interleaving keeps a transient load from landing on one
    method only.  All single-thread timings run before any multi-thread one, so OpenMP workers
    still spinning after a parallel call cannot slow a single-thread measurement.
    """
    phases = [(1, ("banded", "full", "rapidfuzz"))]
    if threads > 1:
        phases.append((threads, ("banded", "full", "rapidfuzz_cpdist")))
    for nthreads, methods in phases:
        numba.set_num_threads(nthreads)
        for st in sets:
            fns = st["_fns"]
            for m in methods:
                fns[m]()  # warm-up at this thread count
            best = dict.fromkeys(methods, float("inf"))
            for _ in range(repeats):
                for m in methods:
                    t = time.perf_counter()
                    fns[m]()
                    best[m] = min(best[m], time.perf_counter() - t)
            st.setdefault("seconds", {}).update({f"{m}_{nthreads}t": v for m, v in best.items()})
    numba.set_num_threads(threads)
    for st in sets:
        st["pairs_per_s"] = {k: st["pairs"] / v for k, v in st["seconds"].items()}
        st["full_cells_per_s_1t"] = st["cells"] / st["seconds"]["full_1t"]
        del st["_fns"]


def markdown(results: list[dict], threads: int) -> str:
    cols = [f"banded_{t}t" for t in sorted({1, threads})]
    cols += [f"full_{t}t" for t in sorted({1, threads})]
    cols += ["rapidfuzz_1t"] + ([f"rapidfuzz_cpdist_{threads}t"] if threads > 1 else [])
    head = "| pair set | pairs | mean len | " + " | ".join(f"{c} (pairs/s)" for c in cols) + " |"
    lines = [head, "|" + "---|" * (3 + len(cols))]
    for r in results:
        vals = " | ".join(f"{r['pairs_per_s'][c]:,.0f}" for c in cols)
        lines.append(f"| {r['set']} | {r['pairs']} | {r['mean_len']:.0f} | {vals} |")
    lines += [
        "",
        "| pair set | within limit | rejected by bound | (tag-only bound) | rejected by banded DP | ",
    ]
    lines[-1] += "banded/full (1t) | banded/full (2t) | banded 1t / rapidfuzz 1t | full 1t / rapidfuzz 1t | "
    lines[-1] += "banded vs full mismatches |"
    lines.append("|" + "---|" * 10)
    for r in results:
        p = r["pairs_per_s"]
        lines.append(
            f"| {r['set']} | {r['within_limit']} | {r['rejected_by_bound']} | "
            f"{r['rejected_by_tag_only_bound']} | {r['rejected_by_banded_dp']} | "
            f"{p['banded_1t'] / p['full_1t']:.1f}x | "
            f"{p[f'banded_{threads}t'] / p[f'full_{threads}t']:.1f}x | "
            f"{p['banded_1t'] / p['rapidfuzz_1t']:.2f}x | {p['full_1t'] / p['rapidfuzz_1t']:.2f}x | "
            f"{r['mismatches_vs_full']} |"
        )
    return "\n".join(lines)


def few_rows(
    store: TagSequenceStore, pairs: list[tuple[int, int]], rows_per_call: list[int], threshold: float
) -> list[dict]:
    """Microseconds per call of both kernels for calls of few rows, idle and beside a busy core.
    Each call compares a page with translations of it (``pairs``), so that the DP runs, as it
    does for the pairs the close's decision proposes."""
    import subprocess

    others: dict[int, list[int]] = defaultdict(list)
    for a, b in pairs:
        others[a].append(b)
        others[b].append(a)
    calls = {}
    for n in rows_per_call:
        calls[n] = []
        for q, rows_of_q in sorted(others.items()):
            if len(rows_of_q) < n:
                continue
            query = store.tokens(int(q))
            rows = np.array(sorted(rows_of_q)[:n], np.int64)
            lengths = store.lengths[rows]
            limits = np.array([limit_for(len(query), int(m), threshold) for m in lengths], np.int32)
            flat, offsets = store.arrays()
            calls[n].append((query, store.query_histogram(query, encoded=True), flat, offsets,
                             store.histograms(), rows, limits))

    def per_call(kernel: object, n: int) -> float:
        for args in calls[n][:3]:
            kernel(*args)  # compiled or loaded from the cache first
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for args in calls[n]:
                kernel(*args)
            best = min(best, (time.perf_counter() - t) / len(calls[n]))
        return best * 1e6

    rows_per_call = [n for n in rows_per_call if calls[n]]  # no page has that many translations
    out = [{"rows": n, "calls": len(calls[n])} for n in rows_per_call]
    for label in ("idle", "busy"):
        spinner = (subprocess.Popen([sys.executable, "-c", "while True: pass"]) if label == "busy" else None)
        try:
            time.sleep(0.2)
            for row, n in zip(out, rows_per_call, strict=True):
                row[f"parallel_{label}_us"] = per_call(batch_distances, n)
                row[f"serial_{label}_us"] = per_call(serial_distances, n)
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=3000, help="pairs per random set (default 3000)")
    ap.add_argument(
        "--threshold",
        type=float,
        default=0.2,
        help="structural threshold as a fraction of the longer page's length, unscaled (default 0.2)",
    )
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="W3C i18n mirror (default %(default)s)")
    ap.add_argument("--repeats", type=int, default=5, help="timing repeats, best kept (default 5)")
    ap.add_argument(
        "--batch", type=int, default=200, help="candidates per query page, random sets (default 200)"
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    ap.add_argument("--rows", default="", help="comma-separated rows per call: the few-rows comparison instead")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    if args.data.is_dir():
        names, seqs = load_w3c(args.data)
        source = f"W3C i18n mirror ({len(seqs)} pages)"
    else:
        names, seqs = synthesize(rng)
        source = f"synthesized ({len(seqs)} sequences; {args.data} not found)"
    load_s = time.perf_counter() - t0
    store = TagSequenceStore()
    for s in seqs:
        store.add(s)
    if args.rows:
        rows = few_rows(store, true_pairs_w3c(names), [int(n) for n in args.rows.split(",")], args.threshold)
        if args.json:
            print(json.dumps({"source": source, "threads": numba.config.NUMBA_NUM_THREADS, "results": rows}, indent=2))
            return 0
        print(f"source: {source}; numba threads: {numba.config.NUMBA_NUM_THREADS}; microseconds per call "
              "(each call a page against translations of it)")
        print()
        print("| rows | calls | parallel, idle | serial, idle | parallel, one core busy | serial, one core busy |")
        print("|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['rows']} | {r['calls']} | {r['parallel_idle_us']:.0f} | {r['serial_idle_us']:.0f} "
                  f"| {r['parallel_busy_us']:.0f} | {r['serial_busy_us']:.0f} |")
        return 0

    true = true_pairs_w3c(names)
    if len(true) > args.pairs:
        true = [true[i] for i in sorted(rng.choice(len(true), args.pairs, replace=False))]
    sets = [
        ("(a) translation pairs", true),
        (
            "(b) random cross-file",
            random_pairs(rng, names, seqs, args.pairs, args.threshold, False, args.batch),
        ),
        (
            "(c) random, size-passing",
            random_pairs(rng, names, seqs, args.pairs, args.threshold, True, args.batch),
        ),
    ]
    threads = numba.config.NUMBA_NUM_THREADS
    load_before = os.getloadavg()[0]
    results = [prepare_set(label, p, seqs, store, args.threshold) for label, p in sets]
    measure(results, threads, args.repeats)
    meta = {
        "command": "benchmarks/bench_edit_distance.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "source": source,
        "linearize_s": load_s,
        "threshold": args.threshold,
        "limit": f"int({SCALE} * {args.threshold} * max(len_a, len_b)) (scaled units)",
        "threads": threads,
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numba": numba.__version__,
        "batch": args.batch,
        "loadavg_1min_before_after": (load_before, os.getloadavg()[0]),
        "wall_s": time.perf_counter() - t0,
    }
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2, default=float))
    else:
        print(f"source: {meta['source']}, linearized in {load_s:.1f} s")
        print(f"limit: {meta['limit']}, threshold {args.threshold}; numba threads: {threads}")
        print(f"1-min load average before/after: {meta['loadavg_1min_before_after']}")
        print()
        print(markdown(results, threads))
        print()
        for r in results:
            print(f"{r['set']}: full DP {r['full_cells_per_s_1t'] / 1e9:.2f}e9 cells/s on one thread")
        print(f"wall time {meta['wall_s']:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
