#!/usr/bin/env python3
"""How the content-only candidate search scales: the translated bag-of-words index
(matchers.content.bag_index) with N pages per language.

    python benchmarks/bench_bag_index.py [--pages 10000] [--queries 200] [--words 300] [--vocab 30000]

Two languages of synthetic pages: each page draws ``--words`` tokens from a Zipf-distributed
vocabulary (exponent 1.1, like word frequencies in text); the second language's pages are the
first's with every word mapped to its "translation" (a renamed word), so a dictionary translates
them back.  Pages are spread over 365 days.  Reported: the time to add the pages, the median and
95th percentile time of one query (a page of the first language against all pages of the second,
with the dictionary translation, the 31-day window and the 40% length window, top 3), whether the
query's best page is its translation, and the index's memory (tracemalloc).  No network, no
database; timings are of this machine, so compare runs made side by side.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matchers.content.bag_index import BagIndex  # noqa: E402
from matchers.page.page_content import page_content  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=10_000, help="pages per language")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--words", type=int, default=300, help="tokens per page")
    ap.add_argument("--vocab", type=int, default=30_000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    vocab = [f"w{i}x" for i in range(a.vocab)]
    translation = {w: f"t{i}y" for i, w in enumerate(vocab)}
    ranks = np.arange(1, a.vocab + 1, dtype=np.float64)
    p = ranks ** -1.1
    p /= p.sum()
    days = rng.integers(0, 365, a.pages)
    docs = []
    for _ in range(a.pages):
        ids = rng.choice(a.vocab, size=a.words, p=p)
        docs.append([vocab[i] for i in ids])

    def content(words: list[str], lang: str):  # ten sentences a page
        step = max(1, len(words) // 10)
        return page_content([("text", lang, " ".join(words[i:i + step]) + ".") for i in range(0, len(words), step)], lang)

    first = [content(d, "en") for d in docs]
    second = [content([translation[w] for w in d], "de") for d in docs]
    tracemalloc.start()
    bags = BagIndex()
    t0 = time.perf_counter()
    for row, c in enumerate(second):
        bags.add("de", row, c, int(days[row]))
    add_s = time.perf_counter() - t0
    memory = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    times, right = [], 0
    picks = rng.choice(a.pages, size=min(a.queries, a.pages), replace=False)
    for q in picks.tolist():
        t0 = time.perf_counter()
        found = bags.query(first[q], "de", translate=lambda w: [(translation[w], 1.0)] if w in translation else [], k=3,
                           day=int(days[q]), window=31, max_length_diff=0.4)
        times.append(time.perf_counter() - t0)
        right += bool(len(found.rows)) and int(found.rows[0]) == q
    times.sort()
    print(f"{a.pages} pages per language, {a.words} tokens each, vocabulary {a.vocab}")
    print(f"index: {add_s:.2f} s to add ({1000 * add_s / a.pages:.3f} ms a page), {memory / 1e6:.1f} MB")
    print(f"query: median {1000 * statistics.median(times):.2f} ms, 95th percentile "
          f"{1000 * times[int(0.95 * (len(times) - 1))]:.2f} ms over {len(times)} queries; "
          f"translation ranked first for {right} of {len(times)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
