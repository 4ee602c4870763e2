"""Replay the size and structure filters over a stored crawl, in the order its pages were stored.

Reads the pages of a crawl's database (tag sequences and sizes, as a resumed crawl does) and runs
`pipelines.size_filter.size_filter` and `matchers.structure.structure_filter.structure_filter` on each
page in turn, with the crawl's default settings, in one thread and one numba thread: the
structure filter's CPU without the crawl around it.  Reports CPU seconds of each filter, the
size-passing pairs, the rows the distance kernel computed, and the candidates kept.

    python benchmarks/bench_structure_replay.py CRAWL.db [--margin 0.10] [--pages N]

A database from the benchmark site: a structure-mode crawl of `bench_crawl_overhead.py`'s site
(or of any site), made as docs/benchmarks.md shows ("Structure search").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402
from scrapy.settings import Settings  # noqa: E402
from sqlalchemy import select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

import bitext_spider.settings as project_settings  # noqa: E402
from bitext_spider.config import BitextConfig  # noqa: E402
from bitext_spider.store.database import Store  # noqa: E402
from bitext_spider.store.models import SiteRow  # noqa: E402
from matchers.site.page_index import PageFeatures, SiteIndex  # noqa: E402
from matchers.structure.structure_filter import structure_filter  # noqa: E402
from matchers.structure.tag_store import TagSequenceStore  # noqa: E402
from pipelines.size_filter import size_filter  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db", type=Path)
    ap.add_argument("--margin", type=float, default=None, help="default: BITEXT_STRUCTURE_BEST_MARGIN's default")
    ap.add_argument("--pages", type=int, default=0, help="only the first N pages (0: all)")
    a = ap.parse_args()
    numba.set_num_threads(1)
    settings = Settings()
    settings.setmodule(project_settings)
    cfg = BitextConfig.from_settings(settings)
    margin = cfg.structure_best_margin if a.margin is None else a.margin
    store = Store(f"sqlite:///{a.db}", create=False)
    rows_computed = 0
    distances = TagSequenceStore.distances

    def counting(self: TagSequenceStore, query, rows, limits, **kw):  # type: ignore[no-untyped-def]
        nonlocal rows_computed
        rows_computed += len(rows)
        return distances(self, query, rows, limits, **kw)

    TagSequenceStore.distances = counting  # type: ignore[method-assign]
    size_cpu = structure_cpu = 0.0
    passed = kept = pages = 0
    with Session(store.engine) as s:
        site_ids = list(s.scalars(select(SiteRow.id).order_by(SiteRow.id)))
    for site_id in site_ids:
        index = SiteIndex(str(site_id))
        for n, page in enumerate(store.stored_pages(site_id)):
            if a.pages and n >= a.pages:
                break
            if not (page.eligible and page.lang and page.tokens is not None):
                continue
            features = PageFeatures(page.url, page.lang, page.size_bytes, page.size_chars, page.n_tags,
                                    page.n_paragraphs, page.tokens)
            if index.duplicate_of(features) is not None:
                continue
            pages += 1
            t0 = time.process_time()
            candidates, _ = size_filter(index, features, cfg)
            t1 = time.process_time()
            passed += sum(len(c) for c in candidates)
            where = index.locate(page.url)
            if candidates:
                structure_filter(
                    index, features.tokens, candidates, cfg.structure_max_ratio, cfg.structure_min_correlation,
                    cfg.max_candidates_per_lang, lang=page.lang, row=where[1] if where else None,
                    margin=margin if margin < 1 else None,
                )
            structure_cpu += time.process_time() - t1
            size_cpu += t1 - t0
            kept += sum(len(c) for c in candidates)
    print(f"pages {pages}: size filter {size_cpu:.1f} s CPU, {passed:,} pairs passed; structure filter "
          f"{structure_cpu:.1f} s CPU, {rows_computed:,} rows computed, {kept:,} candidates kept (margin {margin})")


if __name__ == "__main__":
    main()
