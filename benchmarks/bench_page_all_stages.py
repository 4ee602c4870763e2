"""(b) One new page against 5,000 earlier pages: the CPU of every default matching stage.

Generates a two-language site (one template for every page, the hard case for the size and
structure filters), sends ``--earlier`` English pages through the default item pipelines of the
add-on (parse, normalization, language, main content, URL keys, links, images, fingerprint,
near-duplicates, size, structure, content filter, store), then times each of ``--new`` French
pages through the same chain.  Everything runs in this process (``BITEXT_PARSE_WORKERS=0``, the
structure filter in a thread), so ``time.process_time`` holds all of a page's matching CPU,
the database write included (the writer is flushed after each page).  The provisional-pair stage
is left out: it sends items into a running crawl's engine.  The content model is the site's own,
trained by the French pages as they pair, as in a crawl.

    python benchmarks/bench_page_all_stages.py [--earlier 5000] [--new 200] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy.exceptions import NotConfigured  # noqa: E402
from scrapy.utils.misc import load_object  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from bitext_spider.addon import ITEM_PIPELINES  # noqa: E402
from bitext_spider.crawl.seeds import Site  # noqa: E402
from bitext_spider.demo.site import generate_site, iter_page_files  # noqa: E402
from bitext_spider.items import PageItem  # noqa: E402
from bitext_spider.runtime import BitextRuntime  # noqa: E402
from bitext_spider.spiders.site import SiteSpider  # noqa: E402

LEFT_OUT = {"pipelines.pairs.PairPipeline", "pipelines.pairs.PageSinkPipeline"}


def stages(crawler: Any) -> list[Any]:
    out = []
    for path, _prio in sorted(ITEM_PIPELINES.items(), key=lambda kv: kv[1]):
        if path in LEFT_OUT:
            continue
        try:
            out.append(load_object(path).from_crawler(crawler))
        except NotConfigured:
            continue
    return out


async def through(chain: list[Any], item: PageItem, cpu: dict[str, list[float]] | None = None) -> None:
    """Send ``item`` through ``chain``; with ``cpu``, add each stage's CPU milliseconds to it."""
    for stage in chain:
        c0 = time.process_time()
        result = stage.process_item(item)
        if asyncio.iscoroutine(result):
            await result
        if cpu is not None:
            cpu.setdefault(type(stage).__name__, []).append((time.process_time() - c0) * 1e3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--earlier", type=int, default=5000)
    ap.add_argument("--new", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        info = generate_site(Path(tmp) / "site", base_url="http://127.0.0.1:1", n_docs=a.earlier,
                             langs=("en", "fr"), coverage=1.0, extras=False, seed=11)
        pages: dict[str, list[tuple[str, bytes]]] = {"en": [], "fr": []}
        for url, lang, path in iter_page_files(info):
            pages[lang].append((url, path.read_bytes()))
        earlier, new = pages["en"][: a.earlier], pages["fr"][: a.new]
        settings = {"BITEXT_DB_URL": f"sqlite:///{Path(tmp) / 'b.db'}", "BITEXT_PARSE_WORKERS": 0,
                    "BITEXT_STRUCTURE_WORKER": False, "BITEXT_LANGS": "en,fr"}
        crawler = get_crawler(SiteSpider, settings)
        runtime = BitextRuntime.of(crawler)
        site = Site("127.0.0.1:1", ("http://127.0.0.1:1/",), frozenset({"127.0.0.1:1"}))
        runtime.open_site(site)
        chain = stages(crawler)

        def item(url: str, body: bytes) -> PageItem:
            return PageItem(url=url, site=site.key, body=body, content_type="text/html; charset=utf-8")

        per_stage: dict[str, list[float]] = {}

        async def run() -> list[float]:
            t0 = time.perf_counter()
            for url, body in earlier:
                await through(chain, item(url, body))
            runtime.writer.flush()
            print(f"{len(earlier)} earlier pages in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            cpu = []
            for url, body in new:
                c0 = time.process_time()
                await through(chain, item(url, body), per_stage)
                runtime.writer.flush()
                cpu.append((time.process_time() - c0) * 1e3)
            return cpu

        cpu = asyncio.run(run())
        pairs = crawler.stats.get_value("bitext/candidates/stored", 0)
        runtime.close()
    res = {
        "earlier_pages": len(earlier), "new_pages": len(new), "stages": [type(s).__name__ for s in chain],
        "cpu_ms_median": statistics.median(cpu), "cpu_ms_p90": sorted(cpu)[int(0.9 * (len(cpu) - 1))],
        "cpu_ms_max": max(cpu), "candidates_stored": pairs,
        # The writer's flush after each page is in the total, not in a stage.
        "stage_cpu_ms_median": {name: statistics.median(v) for name, v in per_stage.items()},
    }
    if a.json:
        print(json.dumps(res, indent=1))
        return
    print(f"one new page against {len(earlier)} earlier pages, {len(new)} new pages timed; stages: "
          f"{', '.join(res['stages'])}")
    print(f"CPU a page: median {res['cpu_ms_median']:.1f} ms, p90 {res['cpu_ms_p90']:.1f} ms, "
          f"max {res['cpu_ms_max']:.1f} ms; candidates stored {pairs}")
    print("median CPU a page by stage: " + ", ".join(
        f"{name} {ms:.2f} ms" for name, ms in res["stage_cpu_ms_median"].items()))


if __name__ == "__main__":
    main()
