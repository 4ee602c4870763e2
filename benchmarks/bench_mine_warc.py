"""Pages per second of ``bitext mine-warc`` with matching off, pinned to one core.

    python benchmarks/bench_mine_warc.py [FILE.warc.gz ...] [--docs 1500] [--copies K] [--runs 3] [-s NAME=VALUE]

Without files, the demo site (bitext_spider.demo.site: ``--docs`` documents in en, fr, de, es,
with robots.txt, a sitemap, a feed and binary files) is generated, served on 127.0.0.1, and
crawled with matching off and ``BITEXT_WARC_OUTPUT``; that archive is mined.  ``--copies K``
mines an archive of K copies of the records instead (copy i's URLs under ``/copy<i>/``), for a
larger input from a small crawl.  Each run is ``bitext mine-warc FILES -s BITEXT_ENABLED=False``
in a subprocess restricted to one CPU (``--core``), into a fresh database.  Reported: records
read, pages made, the replay's own time (Scrapy's ``elapsed_time_seconds``, from the engine's start
to the spider's close) and the command's wall time (process start and imports included), and
pages per second over each; the median of ``--runs``.  Matching on (``-s BITEXT_ENABLED=True``)
is measured the same way, with the matching's own worker processes on other cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from crawl_runs import stats_of  # noqa: E402

from bitext_spider.demo.loopback_server import free_port  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402
from bitext_spider.warc.archive_reader import Archived, read_archive  # noqa: E402
from bitext_spider.warc.archive_writer import ArchiveFiles, Exchange  # noqa: E402

CRAWL = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "CONCURRENT_REQUESTS=32", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32",
         "-s", "LOG_LEVEL=WARNING", "-s", "BITEXT_ENABLED=False"]


def archive_site(tmp: Path, docs: int) -> list[Path]:
    """Crawl a generated demo site with matching off into WARC files."""
    port = free_port()
    info = generate_site(tmp / "site", base_url=f"http://127.0.0.1:{port}", n_docs=docs, seed=7)
    server = subprocess.Popen([sys.executable, "-m", "bitext_spider.demo.loopback_server", str(tmp / "site"),
                               "--port", str(port), "--for", "3600"], cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        out = tmp / "archive" / "site.warc.gz"
        subprocess.run([sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={info.seeds_path}",
                        "-s", f"BITEXT_DB_URL=sqlite:///{tmp / 'crawl.db'}", "-s", f"BITEXT_WARC_OUTPUT={out}", *CRAWL],
                       cwd=ROOT, check=True)
    finally:
        server.terminate()
        server.wait()
    print(f"archived a crawl of the demo site ({info.page_count} pages)", file=sys.stderr)
    return sorted(out.parent.glob("site-*.warc.gz"))


def copies(files: list[Path], k: int, out: Path) -> list[Path]:
    """One archive of ``k`` copies of the responses of ``files``, copy i's URLs under /copy<i>/."""
    archive = ArchiveFiles(str(out), 10**12)
    for i in range(k):
        for path in files:
            for rec in read_archive(path):
                if not isinstance(rec, Archived):
                    continue
                scheme, _, host, rest = rec.url.split("/", 3)
                url = rec.url if i == 0 else f"{scheme}//{host}/copy{i}/{rest}"
                archive.write(Exchange(url=url, date=datetime.fromtimestamp(rec.fetched_at, tz=timezone.utc),
                                       status=rec.status, headers=rec.headers, body=rec.body))
    archive.close()
    return archive.paths


def mine(files: list[Path], db: Path, core: int, extra: list[str]) -> dict[str, float]:
    log = db.with_suffix(".log")
    cmd = [sys.executable, "-m", "bitext_spider.commands.cli", "mine-warc", *map(str, files), "--db", str(db),
           "-s", "BITEXT_ENABLED=False", "-s", "LOG_LEVEL=INFO", "-s", f"LOG_FILE={log}",
           "-s", "BITEXT_LOGSTATS_INTERVAL=0", *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          preexec_fn=(lambda: os.sched_setaffinity(0, {core})) if hasattr(os, "sched_setaffinity")
                          else None)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"mine-warc failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    stats = stats_of(log.read_text(errors="replace"))
    summary = [line for line in proc.stderr.splitlines() if line.startswith("bitext: ") and " pages from " in line][-1]
    pages = int(summary.split()[1])
    return {"records": stats.get("bitext/warc/read/records", 0), "pages": pages,
            "elapsed_s": stats.get("elapsed_time_seconds", wall), "wall_s": wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="WARC files (default: archive a crawl of the demo site)")
    ap.add_argument("--docs", type=int, default=1500, help="documents of the demo site (4 languages)")
    ap.add_argument("--copies", type=int, default=1, help="mine K copies of the records as one archive")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--core", type=int, default=0, help="the CPU the command may run on")
    ap.add_argument("-s", dest="settings", action="append", default=[], help="a setting NAME=VALUE for mine-warc")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        files = [f.resolve() for f in a.files] or archive_site(tmp_path, a.docs)
        if a.copies > 1:
            files = copies(files, a.copies, tmp_path / "copies" / "copies.warc.gz")
        size = sum(f.stat().st_size for f in files)
        extra = [x for s in a.settings for x in ("-s", s)]
        runs = []
        for i in range(a.runs):
            runs.append(mine(files, tmp_path / f"mined{i}.db", a.core, extra))
            print(f"run {i + 1}: {runs[-1]}", file=sys.stderr)
    med = {k: statistics.median(r[k] for r in runs) for k in ("elapsed_s", "wall_s")}
    r = runs[0]
    print(f"{len(files)} files, {size / 2**20:.1f} MiB; {r['records']:.0f} records, {r['pages']} pages; "
          f"one core, matching {'on' if 'BITEXT_ENABLED=True' in a.settings else 'off'}, median of {a.runs} runs")
    print("| | seconds | pages/s |")
    print("|---|---|---|")
    print(f"| replay (elapsed_time_seconds) | {med['elapsed_s']:.2f} | {r['pages'] / med['elapsed_s']:.0f} |")
    print(f"| command (wall, process start included) | {med['wall_s']:.2f} | {r['pages'] / med['wall_s']:.0f} |")


if __name__ == "__main__":
    main()
