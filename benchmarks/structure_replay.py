"""Replay a crawl's stored pages through the size and structure filters and count the work.

Reads the eligible pages of a crawl database (``BITEXT_DB_URL`` of a finished crawl, SQLite) in
the order they were stored, registers them as the crawl did, and runs the size filter and the
structure filter (best-k search with best-so-far pruning, default settings).  Counts:

* ``rows``: banded distances computed (after the tag-histogram lower bound), and ``within``: how
  many ended within their limit;
* with ``--bounds``, on every ``--every``-th new page among the first ``--sample`` pages: for
  each pair that passes the histogram bound, whether its full distance is over the limit, and
  whether cheaper bounds would have rejected it: an order-free match of text chunks binned by
  tens of words, and the distance of the subsequence of block-level tags, of their start tags,
  and of all tags (an edit script restricted to a set of token types is an alignment of those
  subsequences at no more cost, so each is a lower bound).

    python benchmarks/structure_replay.py structure.db [-s NAME=VALUE ...]
    python benchmarks/structure_replay.py structure.db --bounds --sample 3000 --every 10

``structure.db``: a structure-mode crawl of benchmark (c)'s site, made as docs/benchmarks.md shows
("Structure search").
"""

from __future__ import annotations

import argparse
import collections
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bitext_spider.config import BitextConfig  # noqa: E402
from matchers.page.linearize import BLOCK_TAGS, tag_code  # noqa: E402
from matchers.site.page_index import PageFeatures, SiteIndex  # noqa: E402
from matchers.structure.edit_distance import SCALE, _banded_rev  # noqa: E402
from matchers.structure.structure_filter import structure_filter  # noqa: E402
from matchers.structure.structure_threshold import scaled_limits  # noqa: E402
from matchers.structure.tag_store import TagSequenceStore  # noqa: E402
from pipelines.size_filter import size_filter  # noqa: E402

_BLOCK = np.array(sorted({tag_code(t) for t in BLOCK_TAGS} | {tag_code(t, True) for t in BLOCK_TAGS}), np.int32)
_BLOCK_START = np.array(sorted(tag_code(t) for t in BLOCK_TAGS), np.int32)


def _pages(db: str, limit: int) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute(
            "select url, lang, size_bytes, size_chars, n_tags, n_paragraphs, tokens from pages"
            " where eligible and tokens is not null and lang is not null order by id"
        ).fetchall()[:limit]
    finally:
        con.close()


def _free_text_matches(a: np.ndarray, b: np.ndarray) -> int:
    """Largest matching of sorted bins where matched bins differ by at most one (greedy is exact
    on an interval graph)."""
    i = j = m = 0
    while i < len(a) and j < len(b):
        if abs(int(a[i]) - int(b[j])) <= 1:
            m, i, j = m + 1, i + 1, j + 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return m


def _binned_bound(q: dict[str, Any], o: dict[str, Any]) -> int:
    free = int(np.minimum(q["hist"], o["hist"]).sum()) + _free_text_matches(q["bins"], o["bins"])
    return SCALE * max(q["n"] - free, o["n"] - free)


def _shape(tokens: np.ndarray, nbuckets: int = 64) -> dict[str, Any]:
    tags = tokens[tokens < 0]
    hist = np.bincount((-tags.astype(np.int64) - 1) % (nbuckets - 1), minlength=nbuckets - 1)
    return {
        "n": len(tokens),
        "hist": hist,
        "bins": np.sort((tokens[tokens > 0] - 1) // 10),
        "block": tokens[np.isin(tokens, _BLOCK)],
        "block_start": tokens[np.isin(tokens, _BLOCK_START)],
        "tags": tags,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", help="SQLite file of a finished crawl")
    ap.add_argument("--limit", type=int, default=10**9, help="replay only the first N pages")
    ap.add_argument("--bounds", action="store_true", help="also test cheaper lower bounds on a sample")
    ap.add_argument("--sample", type=int, default=3000, help="pages whose pairs may be sampled (--bounds)")
    ap.add_argument("--every", type=int, default=10, help="test the pairs of one new page in N (--bounds)")
    ap.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a BITEXT_ setting for the replay, as with scrapy crawl -s")
    args = ap.parse_args()
    cfg = BitextConfig.from_settings(dict(item.split("=", 1) for item in args.set))
    pages = _pages(args.db, args.sample if args.bounds else args.limit)
    counts: collections.Counter[str] = collections.Counter()
    plain_distances = TagSequenceStore.distances

    def counting(self: TagSequenceStore, query: np.ndarray, rows: np.ndarray, limits: Any, **kw: Any) -> np.ndarray:
        d = plain_distances(self, query, rows, limits, **kw)
        counts["rows"] += len(rows)
        counts["within"] += int(np.sum(d <= np.broadcast_to(np.asarray(limits), rows.shape)))
        return d

    index = SiteIndex("replay")
    shapes: dict[str, dict[str, Any]] = {}
    margin = cfg.structure_best_margin
    t0 = time.process_time()
    for n, (url, lang, size_bytes, size_chars, n_tags, n_paragraphs, blob) in enumerate(pages):
        tokens = np.frombuffer(blob, dtype=np.int32).copy()
        page = PageFeatures(url, lang, size_bytes, size_chars, n_tags, n_paragraphs, tokens, None)
        if index.duplicate_of(page):
            continue
        candidates, _ = size_filter(index, page, cfg)
        counts["size_passing"] += sum(len(c) for c in candidates)
        if args.bounds:
            shapes[url] = q = _shape(tokens)
            if n % args.every:
                continue
            for cand in candidates:
                store = index.index(cand.lang).tags
                urls = index.index(cand.lang).urls
                lim = scaled_limits(len(tokens), store.lengths[cand.rows], cfg.structure_max_ratio).astype(np.int64)
                lower = store.lower_bounds(tokens, cand.rows)
                dist = store.distances(tokens, cand.rows, lim).astype(np.int64)
                for k in np.flatnonzero(lower <= lim):
                    o = shapes[urls[int(cand.rows[k])]]
                    over = dist[k] > lim[k]
                    counts["pairs"] += 1
                    counts["over_limit"] += int(over)
                    counts["cut/binned_texts"] += int(_binned_bound(q, o) > lim[k])
                    for name in ("block", "block_start", "tags"):
                        bound = _banded_rev(o[name], q[name][::-1].copy(), int(lim[k]))
                        counts[f"cut/{name}"] += int(bound > lim[k])
                        counts[f"tokens/{name}"] += len(q[name])
                    counts["tokens/all"] += len(tokens)
            continue
        where = index.locate(url)
        TagSequenceStore.distances = counting  # type: ignore[method-assign]
        try:
            structure_filter(index, tokens, candidates, cfg.structure_max_ratio, cfg.structure_min_correlation,
                             cfg.max_candidates_per_lang, lang=lang, row=where[1] if where else None,
                             margin=margin if margin < 1.0 else None)
        finally:
            TagSequenceStore.distances = plain_distances  # type: ignore[method-assign]
        counts["kept"] += sum(len(c) for c in candidates)
    print(f"{len(pages)} pages, {time.process_time() - t0:.1f} s CPU")
    for key, value in sorted(counts.items()):
        print(f"{key}: {value}")
    if counts["rows"]:
        print(f"within the limit: {counts['within'] / counts['rows']:.1%} of the banded distances")


if __name__ == "__main__":
    main()
