#!/usr/bin/env python3
"""Cost of the near-duplicate index (matchers.site.near_duplicates) per crawled page.

    python benchmarks/bench_near_duplicates.py [--pages 20000] [--seed 0]

Synthetic pages of one site and language: each has 5 to 15 paragraphs of its own and the site's
three template paragraphs (on every page, so frequent); one page in ten also carries one of twenty
section paragraphs.  One page in ten is a near-copy of an earlier page (one paragraph changed,
added or removed), and one in a hundred re-crawls an earlier URL with new text.  Reported: the
time of ``add`` per page (without tracemalloc), the memory the index holds afterwards and at peak
(tracemalloc: all allocations made while adding, numpy's included; the pages' hashes and URLs are
made before), and a digest of the decisions, which must not change with the implementation.  Timings are of this machine; compare runs made side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matchers.site.near_duplicates import NearDuplicateIndex  # noqa: E402


def synthetic(pages: int, seed: int) -> list[tuple[str, list[bytes]]]:
    rng = np.random.default_rng(seed)
    serial = iter(range(10**12))

    def fresh(n: int) -> list[bytes]:
        return [hashlib.md5(f"p{next(serial)}".encode()).digest() for _ in range(n)]

    template = fresh(3)
    sections = fresh(20)
    stream: list[tuple[str, list[bytes]]] = []
    own: list[list[bytes]] = []
    for i in range(pages):
        roll = rng.random()
        if own and roll < 0.1:
            body = list(own[int(rng.integers(len(own)))])
            edit = int(rng.integers(3))
            if edit == 0 and body:
                body[int(rng.integers(len(body)))] = fresh(1)[0]
            elif edit == 1:
                body.append(fresh(1)[0])
            elif len(body) > 1:
                body.pop(int(rng.integers(len(body))))
        else:
            body = fresh(int(rng.integers(5, 16)))
        own.append(body)
        url = f"https://example.com/page/{i}"
        if stream and roll > 0.99:
            url = stream[int(rng.integers(len(stream)))][0]
        extra = [sections[int(rng.integers(len(sections)))]] if rng.random() < 0.1 else []
        stream.append((url, template + extra + body))
    return stream


def run(stream: list[tuple[str, list[bytes]]]) -> tuple[NearDuplicateIndex, str, int]:
    index = NearDuplicateIndex()
    digest = hashlib.md5()
    decisions = 0
    for url, hashes in stream:
        for d in index.add(url, hashes):
            digest.update(f"{d.kept} {d.dropped} {d.share:.6f}\n".encode())
            decisions += 1
    return index, digest.hexdigest()[:12], decisions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    stream = synthetic(a.pages, a.seed)
    hashes = sum(len(h) for _, h in stream)

    t0 = time.perf_counter()
    index, digest, decisions = run(stream)
    seconds = time.perf_counter() - t0
    kept = len(index)
    del index

    tracemalloc.start()
    index, _, _ = run(stream)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(f"{a.pages} pages, {hashes / a.pages:.1f} hashes a page; {kept} kept, {decisions} decisions "
          f"(digest {digest})")
    print(f"add: {1e6 * seconds / a.pages:.1f} us a page")
    print(f"memory: {current / 1e6:.2f} MB ({current / a.pages:.0f} B a page); "
          f"peak {peak / 1e6:.2f} MB ({peak / a.pages:.0f} B a page)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
