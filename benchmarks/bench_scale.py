#!/usr/bin/env python3
"""A large crawl with every default stage: does the time per page stay flat, and memory bounded?

    python benchmarks/bench_scale.py [--docs 47500] [--window 2000] [-s NAME=VALUE ...] [--json] [--keep-log FILE]

Generates the two-language site of docs/benchmarks.md (c) with ``--docs`` documents per language
(47,500: about 100,000 pages), serves it from a separate process on loopback and crawls it once
with the default settings and the benchmark crawl settings of (c).  Reports the crawl's wall
time, the peak of the summed resident sets of the crawl process and its workers
(benchmarks/crawl_runs.py), Scrapy's ``memusage/max`` and the time after the last response, and,
from the stored pages' fetch times, the time per page over windows of ``--window`` pages at
10,000 pages and at the end of the crawl.  The fetch time is when a page's stages stored it, so
a window's time per page is the whole pipeline's pace there, not only the downloader's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_crawl_overhead import CRAWL_SETTINGS  # noqa: E402
from crawl_runs import run_crawl  # noqa: E402

from bitext_spider.demo.loopback_server import free_port  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402


def per_page_ms(times: list[float], end: int, window: int) -> float:
    """Milliseconds per page over the ``window`` pages stored before page number ``end``."""
    end = min(end, len(times))
    start = max(0, end - window)
    return 1000.0 * (times[end - 1] - times[start]) / max(1, end - 1 - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=47500, help="documents per language (47500 -> ~100,000 pages)")
    ap.add_argument("--window", type=int, default=2000, help="pages per time-per-page window")
    ap.add_argument("-s", dest="settings", action="append", default=[], help="Scrapy setting NAME=VALUE")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep-log", type=Path, help="copy the crawl's log (its final stats included) here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        port = free_port()
        t0 = time.perf_counter()
        info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=a.docs,
                             langs=("en", "fr"), coverage=1.0, extras=False, seed=21)
        print(f"site: {info.page_count} pages (en, fr), generated in {time.perf_counter() - t0:.0f} s", flush=True)
        server = subprocess.Popen([sys.executable, "-m", "bitext_spider.demo.loopback_server", str(tmp_path / "site"),
                                   "--port", str(port), "--for", "86400"], cwd=ROOT, stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        db, log = tmp_path / "crawl.db", tmp_path / "crawl.log"
        cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={info.seeds_path}",
               "-s", f"BITEXT_DB_URL=sqlite:///{db}", *CRAWL_SETTINGS, "-s", f"LOG_FILE={log}",
               *[x for s in a.settings for x in ("-s", s)]]
        try:
            run = run_crawl(cmd, ROOT, log)
        finally:
            server.terminate()
            server.wait()
            if a.keep_log is not None and log.exists():
                shutil.copyfile(log, a.keep_log)
        with sqlite3.connect(db) as conn:
            times = [t for (t,) in conn.execute("SELECT fetched_at FROM pages ORDER BY fetched_at")]
    at_10k = per_page_ms(times, 10_000, a.window)
    at_end = per_page_ms(times, len(times), a.window)
    result = {
        **run,
        "stored_pages": len(times),
        "ms_per_page_at_10k": at_10k,
        "ms_per_page_at_end": at_end,
        "end_to_10k": at_end / at_10k if at_10k else 0.0,
    }
    if a.json:
        print(json.dumps(result, indent=1))
        return
    print(f"crawl: {run['seconds']:.0f} s wall, {run['cpu_s']:.0f} CPU-s, {run['pages']} pages stored, "
          f"{run['pairs']} pairs, after the last response {run['after_last_response_s']:.1f} s "
          f"({run['after_share']:.1%})")
    print(f"peak RSS, all processes: {run['peak_rss_mb']:.0f} MB, {run['peak_before_end_s']:.0f} s before the end; "
          f"crawl process memusage/max {run['memusage_max_mb']:.0f} MB")
    print(f"time per page over {a.window} pages: {at_10k:.2f} ms at 10,000 pages, {at_end:.2f} ms at the end "
          f"({len(times)} pages): {result['end_to_10k']:.2f}x")


if __name__ == "__main__":
    main()
