"""(c) Crawl of a generated 10,000-page two-language site on loopback, matching off and on.

Generates the site once (``bitext_spider.demo.site``, en and fr, one template, seed 21), serves
it from a separate process on 127.0.0.1, then runs `scrapy crawl site` in each mode, alternating,
`--repeat` times each (AutoThrottle off, 32 concurrent requests, SQLite; ``--polite``: the
project's AutoThrottle and concurrency):

* ``off``: ``BITEXT_ENABLED=False``, the same crawl with every bitext component off (the spider
  alone: no stage, no store);
* ``structure``: the WebMining pipeline alone (size, language and structure filters, then the
  one-to-one resolution; ``BITEXT_CONTENT_ENABLED=False BITEXT_EVIDENCE_ENABLED=False``);
* ``evidence``: those plus the site-level evidence stages and the decision at close
  (``BITEXT_CONTENT_ENABLED=False``);
* ``on``: every default stage, content filter included;
* ``on-inline``: ``on`` with ``BITEXT_PARSE_WORKERS=0`` (pages parsed in the crawl process);
* ``on-structure-process`` / ``on-structure-thread``: ``on`` with the structure filter in a worker
  process of its own or in a thread of the crawl process (``BITEXT_STRUCTURE_WORKER``).

It reports each mode's median wall time, its ratio to ``off``, pages/s, CPU seconds (the crawl
process and its workers), peak memory (the largest sum of the resident sets of the crawl process
and its workers, benchmarks/crawl_runs.py) and the share of the crawl's time that came after the
last response (``bitext/time/after_last_response_s``: the close-time work).  Only ratios of runs made side by side in one
invocation compare: the same crawl's wall time varies from run to run on a shared machine.

    python benchmarks/bench_crawl_overhead.py [--docs 4750] [--repeat 2] [--modes off,structure,on] [--polite] [--latency S] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from crawl_runs import run_crawl  # noqa: E402

from bitext_spider.demo.loopback_server import free_port  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402

# As fast as the loopback server answers, so that the matching, not the politeness delays, is what
# the ratio measures; ``--polite`` keeps the project's AutoThrottle and concurrency instead.
FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS=32", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32"]
CRAWL_SETTINGS = ["-s", "LOG_LEVEL=INFO", "-s", "BITEXT_LOGSTATS_INTERVAL=0"]


MODES = {
    "off": ["-s", "BITEXT_ENABLED=False"],
    "structure": ["-s", "BITEXT_CONTENT_ENABLED=False", "-s", "BITEXT_EVIDENCE_ENABLED=False"],
    # the structure filters, site-level evidence and the decision at close (no content filter)
    "evidence": ["-s", "BITEXT_CONTENT_ENABLED=False"],
    "on": [],
    # every default stage, pages parsed on the reactor thread instead of in a worker process
    "on-inline": ["-s", "BITEXT_PARSE_WORKERS=0"],
    # every default stage, the structure filter in a worker process of its own
    "on-structure-process": ["-s", "BITEXT_STRUCTURE_WORKER=True"],
    # every default stage, the structure filter in a thread of the crawl process
    "on-structure-thread": ["-s", "BITEXT_STRUCTURE_WORKER=False"],
    # every default stage, glibc's own limit of arenas (bitext_spider.glibc_malloc)
    "on-glibc-arenas": ["-s", "BITEXT_MALLOC_ARENAS=0"],
    # every default stage, glibc's allocator as it comes: its own limit of arenas, no trimming
    "on-glibc-defaults": ["-s", "BITEXT_MALLOC_ARENAS=0", "-s", "BITEXT_MALLOC_TRIM=False"],
    # every default stage, every page's main content kept in memory (none in the temporary file)
    "on-content-in-memory": ["-s", "BITEXT_CONTENT_IN_MEMORY=0"],
    # every default stage, the 2,000 most recent pages' content of each language in memory
    "on-content-2000": ["-s", "BITEXT_CONTENT_IN_MEMORY=2000"],
    # every default stage, 250 KB of downloaded responses let wait for the stages (the add-on: 1 MB)
    "on-backlog-250k": ["-s", "SCRAPER_SLOT_MAX_ACTIVE_SIZE=250000"],
}


def crawl(seeds: Path, db: Path, mode: str, polite: bool = False) -> dict[str, float]:
    log = db.with_suffix(".log")
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL=sqlite:///{db}",
           *MODES[mode], *([] if polite else FAST), *CRAWL_SETTINGS, "-s", f"LOG_FILE={log}"]
    run = run_crawl(cmd, ROOT, log)
    if mode == "off":
        run["pages"] = run["responses"]  # nothing is stored with bitext off
    run["pages_per_s"] = run["pages"] / run["seconds"]
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=4750, help="documents per language (4750 -> ~10,000 pages)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--modes", default="off,structure,on", help="comma-separated, from " + ", ".join(MODES))
    ap.add_argument("--polite", action="store_true", help="the project's AutoThrottle and concurrency")
    ap.add_argument("--latency", type=float, default=0.0, metavar="SECONDS",
                    help="the server holds every answer back this long, as one across a network would")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    modes = [m for m in a.modes.split(",") if m]
    if "off" not in modes or any(m not in MODES for m in modes):
        raise SystemExit(f"--modes must include off and be among {', '.join(MODES)}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        port = free_port()
        info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=a.docs,
                             langs=("en", "fr"), coverage=1.0, extras=False, seed=21)
        server = subprocess.Popen([sys.executable, "-m", "bitext_spider.demo.loopback_server", str(tmp_path / "site"),
                                   "--port", str(port), "--for", "7200", "--latency", str(a.latency)],
                                  cwd=ROOT, stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        runs: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
        try:
            for i in range(a.repeat):
                for mode in modes:
                    db = tmp_path / f"{mode}{i}.db"
                    runs[mode].append(crawl(info.seeds_path, db, mode, a.polite))
                    print(f"{mode} run {i + 1}: {runs[mode][-1]}", file=sys.stderr)
        finally:
            server.terminate()
            server.wait()
    med = {m: statistics.median(r["seconds"] for r in rs) for m, rs in runs.items()}
    res = {
        "site_pages": info.page_count,
        "runs": runs,
        "median_seconds": med,
        "ratio_to_off": {m: med[m] / med["off"] for m in modes},
        "peak_rss_mb": {m: max(r["peak_rss_mb"] for r in rs) for m, rs in runs.items()},
        "after_share": {m: statistics.median(r["after_share"] for r in rs) for m, rs in runs.items()},
    }
    if a.json:
        print(json.dumps(res, indent=1))
        return
    latency = f", answers held back {a.latency:g} s" if a.latency else ""
    print(f"site: {info.page_count} pages (en, fr), served by a separate process on 127.0.0.1{latency}; "
          f"{a.repeat} runs each")
    print("| matching | median wall s | ratio to off | pages/s | CPU s | peak RSS MB (all processes) "
          "| after last page | pages | pairs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for m in modes:
        r = runs[m][0]
        print(f"| {m} | {med[m]:.1f} | {res['ratio_to_off'][m]:.2f} | {r['pages'] / med[m]:.0f} "
              f"| {statistics.median(x['cpu_s'] for x in runs[m]):.1f} "
              f"| {res['peak_rss_mb'][m]:.0f} | {res['after_share'][m]:.1%} | {r['pages']} | {r['pairs']} |")
    for m in modes:
        pairs = [f"{b['seconds'] / a['seconds']:.2f}" for a, b in zip(runs["off"], runs[m], strict=True)]
        if m != "off":
            print(f"{m}: ratios of the runs made side by side: {', '.join(pairs)}")


if __name__ == "__main__":
    main()
