"""Default settings against ``BITEXT_ENABLED=False`` on the same site, side by side.

Serves a site folder (``hosts.tsv``, ``seeds.txt``: ../shared/bench/serve.py) or a site generated
on the spot (``--generated en,fr,de --docs 170``: bitext_spider.demo.site, served from loopback),
then crawls it ``--repeat`` times in each mode, alternating (``off`` first), with the project's
default crawl settings, AutoThrottle off and 32 concurrent requests (``--polite``: the project's
AutoThrottle).  For each run it measures (benchmarks/crawl_runs.py) the wall time, the
CPU of the crawl process and its workers, the largest sum of their resident sets, and the share
of the crawl's time that came after the last response (the close-time work).

    python benchmarks/bench_site_overhead.py ../shared/data/w3c-i18n [--repeat 3] [--json] [--keep-logs DIR]
    python benchmarks/bench_site_overhead.py --generated en,fr,de,es,ja,ko --docs 170 [--repeat 3]
    python benchmarks/bench_site_overhead.py SITE --modes off,on-structure-process,on-structure-thread
    python benchmarks/bench_site_overhead.py SITE --polite --latency 0.1   # a server across a network
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from crawl_runs import run_crawl  # noqa: E402

from bitext_spider.demo.loopback_server import free_port  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402

BENCH = ROOT.parent / "shared" / "bench"
MODES = {
    "off": ["-s", "BITEXT_ENABLED=False"],
    "on": [],
    # every default stage, the structure filter in a worker process of its own
    "on-structure-process": ["-s", "BITEXT_STRUCTURE_WORKER=True"],
    # every default stage, the structure filter in a thread of the crawl process
    "on-structure-thread": ["-s", "BITEXT_STRUCTURE_WORKER=False"],
    # every default stage, 250 KB of downloaded responses let wait for the stages (the add-on: 1 MB)
    "on-backlog-250k": ["-s", "SCRAPER_SLOT_MAX_ACTIVE_SIZE=250000"],
}
# As in bench_crawl_overhead.py: as fast as the loopback server answers, so the matching, not the
# politeness delays, is what the ratio measures (``--polite`` keeps the project's AutoThrottle).
FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS=32", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32"]


def crawl(seeds: Path, tmp: Path, mode: str, i: int, polite: bool, keep_logs: Path | None = None,
          extra: list[str] | None = None) -> dict[str, Any]:
    db, log = tmp / f"{mode}{i}.db", tmp / f"{mode}{i}.log"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={seeds}", "-s", f"BITEXT_DB_URL=sqlite:///{db}",
           "-s", "LOG_LEVEL=INFO", "-s", f"LOG_FILE={log}", *MODES[mode], *([] if polite else FAST),
           *[x for setting in (extra or []) for x in ("-s", setting)]]
    try:
        return run_crawl(cmd, ROOT, log)
    finally:
        if keep_logs is not None and log.exists():
            keep_logs.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, keep_logs / log.name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path, nargs="?")
    ap.add_argument("--generated", help="comma-separated languages of a generated site (instead of a folder)")
    ap.add_argument("--docs", type=int, default=170, help="documents per language of the generated site")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--polite", action="store_true", help="the project's AutoThrottle and concurrency")
    ap.add_argument("--latency", type=float, default=0.0, metavar="SECONDS",
                    help="the server holds every answer back this long, as one across a network would")
    ap.add_argument("--modes", default="off,on", help=f"comma-separated, off first ({', '.join(MODES)})")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-s", dest="settings", action="append", default=[],
                    help="Scrapy setting NAME=VALUE for the modes other than off")
    ap.add_argument("--keep-logs", type=Path, help="copy each crawl's log (its final stats included) to this folder")
    a = ap.parse_args()
    if (a.site is None) == (a.generated is None):
        raise SystemExit("give a site folder or --generated LANGS")
    modes = a.modes.split(",")
    if modes[0] != "off" or len(modes) < 2 or any(m not in MODES for m in modes):
        raise SystemExit(f"--modes: off first, then one or more of {', '.join(m for m in MODES if m != 'off')}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if a.site is not None:
            site = a.site.resolve()
            seeds = site / "seeds.txt"
            # The project's server (one document root, as the shared data's sites have) can hold
            # its answers back; the shared one cannot.
            cmd = ([sys.executable, "-m", "bitext_spider.demo.loopback_server", str(site), "--latency", str(a.latency)]
                   if a.latency else [sys.executable, str(BENCH / "serve.py"), str(site)])
            server = subprocess.Popen([*cmd, "--for", "7200"], cwd=ROOT, stdout=subprocess.DEVNULL)
            label = site.name
        else:
            port = free_port()
            langs = tuple(a.generated.split(","))
            info = generate_site(tmp / "site", base_url=f"http://127.0.0.1:{port}", n_docs=a.docs, langs=langs,
                                 coverage=1.0, extras=False, seed=5)
            seeds = info.seeds_path
            server = subprocess.Popen([sys.executable, "-m", "bitext_spider.demo.loopback_server", str(tmp / "site"),
                                       "--port", str(port), "--for", "7200", "--latency", str(a.latency)],
                                      cwd=ROOT, stdout=subprocess.DEVNULL)
            label = f"generated, {len(langs)} languages, {info.page_count} pages"
        time.sleep(1.0)
        runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
        try:
            for i in range(a.repeat):
                for mode in modes:
                    runs[mode].append(crawl(seeds, tmp, mode, i, a.polite, a.keep_logs,
                                             a.settings if mode != "off" else None))
                    print(f"{mode} run {i + 1}: {runs[mode][-1]}", file=sys.stderr)
        finally:
            server.terminate()
            server.wait()
    med = {m: statistics.median(r["seconds"] for r in rs) for m, rs in runs.items()}
    matched = modes[1:]
    res = {
        "site": label, "runs": runs, "median_seconds": med,
        "ratio": {m: med[m] / med["off"] for m in matched},
        "pair_ratios": {m: [b["seconds"] / o["seconds"] for o, b in zip(runs["off"], runs[m], strict=True)]
                        for m in matched},
        "after_share_median": {m: statistics.median(r["after_share"] for r in runs[m]) for m in matched},
        "peak_rss_mb": {m: max(r["peak_rss_mb"] for r in rs) for m, rs in runs.items()},
    }
    if a.json:
        print(json.dumps(res, indent=1))
        return
    latency = f", answers held back {a.latency:g} s" if a.latency else ""
    print(f"site: {label}{latency}; {a.repeat} runs a mode, alternating")
    print("| mode | median wall s | CPU s (median) | peak RSS MB, all processes | after last response | pages | pairs |")
    print("|---|---|---|---|---|---|---|")
    for m, rs in runs.items():
        after = res["after_share_median"].get(m, 0.0)
        print(f"| {m} | {med[m]:.1f} | {statistics.median(r['cpu_s'] for r in rs):.1f} | {res['peak_rss_mb'][m]:.0f} "
              f"| {after:.1%} | {rs[0]['pages'] or rs[0]['responses']} | {rs[0]['pairs']} |")
    for m in matched:
        print(f"{m}: ratio of medians {res['ratio'][m]:.2f}; side by side: "
              f"{', '.join(f'{x:.2f}' for x in res['pair_ratios'][m])}")


if __name__ == "__main__":
    main()
