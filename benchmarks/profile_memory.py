#!/usr/bin/env python3
"""Where a default crawl's memory goes: tracemalloc snapshots of the crawl process and the
resident set of every process of the crawl.

    python benchmarks/profile_memory.py [--docs 4750] [--every 2500] [--out DIR] [-s NAME=VALUE ...]
    python benchmarks/profile_memory.py --show DIR/memory.jsonl [--lines 25]
    python benchmarks/profile_memory.py --resident [--docs 4750]
    python benchmarks/profile_memory.py --memray OUT.bin [--docs 4750]    # pip install memray

Crawls the generated two-language site of docs/benchmarks.md (c) (``--docs 4750``: about 10,000
pages) with the default settings and benchmarks/memory_snapshots.py as an extension: after every
``--every`` stored pages and when the spider closes it writes the crawl process's largest
allocation sites (tracemalloc, one frame: the line that allocated) and its resident set.  The
peak resident set of each process of the crawl (the crawl process, the parse and structure
workers) is sampled with psutil.  tracemalloc slows the crawl about twofold; the sizes are what
it measures, not the time.

With ``--resident`` the crawl runs without tracemalloc (whose tables about double the crawl
process's resident set) and reports each process's peak resident set split into anonymous
memory (the heaps) and file-backed pages (shared libraries, counted again in every process that
maps them), with the largest mappings.

With ``--memray OUT.bin`` the crawl process runs under memray instead of tracemalloc (not a
dependency of the project: ``pip install memray``), which records every allocation with its
Python stack; ``memray tree OUT.bin`` then shows what was allocated at the crawl process's
high-water mark, transients included, which snapshots taken every ``--every`` pages miss.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_crawl_overhead import CRAWL_SETTINGS  # noqa: E402

from bitext_spider.demo.loopback_server import free_port  # noqa: E402
from bitext_spider.demo.site import generate_site  # noqa: E402


def _short(path: str) -> str:
    for marker in ("site-packages/", str(ROOT) + "/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def show(path: Path, lines: int) -> None:
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        print(f"\n== {rec['label']}: RSS {rec['rss_mb']:.0f} MB, traced {rec['traced_mb']:.0f} MB "
              f"(traced peak {rec['traced_peak_mb']:.0f} MB)")
        print("  by file:")
        for name, mb, count in rec["by_file"][:lines]:
            print(f"    {mb:8.1f} MB {count:9d}  {_short(name)}")
        print("  by line:")
        for where, mb, count in rec["by_line"][:lines]:
            print(f"    {mb:8.1f} MB {count:9d}  {_short(where)}")


def _mappings(pid: int) -> tuple[float, list[tuple[float, str]]]:
    """Anonymous MB of a process and its resident MB per mapped file, largest first (Linux)."""
    by_file: dict[str, int] = {}
    anon = 0
    current = ""
    with open(f"/proc/{pid}/smaps") as fh:
        for line in fh:
            head = line.split(maxsplit=6)
            if len(head) >= 5 and "-" in head[0] and ":" in head[3]:
                current = head[5].strip() if len(head) > 5 else ""
            elif head[0] == "Rss:" and current.startswith("/"):
                by_file[current] = by_file.get(current, 0) + int(head[1])
            elif head[0] == "Anonymous:":
                anon += int(head[1])
    return anon / 1024, sorted(((kb / 1024, path) for path, kb in by_file.items()), reverse=True)


class PeakRss:
    """The largest resident set of each process under ``pid``, by its command line; with
    ``mappings``, also how it splits at that peak (``_mappings``)."""

    def __init__(self, pid: int, mappings: bool = False) -> None:
        self.root = psutil.Process(pid)
        self.peaks: dict[int, tuple[float, str]] = {}
        self.split: dict[int, tuple[float, list[tuple[float, str]]]] = {}
        self.mappings = mappings
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            with contextlib.suppress(psutil.Error):
                for proc in [self.root, *self.root.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        rss = proc.memory_info().rss / 2**20
                        cmd = proc.cmdline()
                        # A worker's command line ends with its name (bitext_spider.workers.channel).
                        name = f"worker {cmd[-1]}" if any("_worker_main" in c for c in cmd) else " ".join(cmd)[:90]
                        if rss > self.peaks.get(proc.pid, (0.0, ""))[0]:
                            self.peaks[proc.pid] = (rss, name)
                            if self.mappings:
                                with contextlib.suppress(OSError):
                                    self.split[proc.pid] = _mappings(proc.pid)

    def stop(self) -> dict[int, tuple[float, str]]:
        self._stop.set()
        self._thread.join()
        return self.peaks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=4750)
    ap.add_argument("--every", type=int, default=2500, help="a snapshot after this many stored pages")
    ap.add_argument("--out", type=Path, help="keep memory.jsonl and the crawl log here")
    ap.add_argument("--lines", type=int, default=25, help="allocation sites shown per snapshot")
    ap.add_argument("-s", dest="settings", action="append", default=[], help="Scrapy setting NAME=VALUE")
    ap.add_argument("--show", type=Path, help="only print a kept memory.jsonl (no crawl)")
    ap.add_argument("--resident", action="store_true",
                    help="no tracemalloc: each process's peak resident set, anonymous and file-backed")
    ap.add_argument("--memray", type=Path, metavar="OUT.bin",
                    help="run the crawl process under memray (pip install memray), writing OUT.bin")
    a = ap.parse_args()
    if a.show:
        show(a.show, a.lines)
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        out = a.out or tmp_path
        out.mkdir(parents=True, exist_ok=True)
        snapshots, log = out / "memory.jsonl", out / "crawl.log"
        snapshots.unlink(missing_ok=True)
        port = free_port()
        info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=a.docs,
                             langs=("en", "fr"), coverage=1.0, extras=False, seed=21)
        server = subprocess.Popen([sys.executable, "-m", "bitext_spider.demo.loopback_server", str(tmp_path / "site"),
                                   "--port", str(port), "--for", "7200"], cwd=ROOT, stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        extra = [x for s in a.settings for x in ("-s", s)]
        runner = [sys.executable, "-m", "memray", "run", "--force", "-o", str(a.memray.resolve())] if a.memray \
            else [sys.executable]
        cmd = [*runner, "-m", "scrapy", "crawl", "site", "-a", f"seeds={info.seeds_path}",
               "-s", f"BITEXT_DB_URL=sqlite:///{tmp_path / 'crawl.db'}", *CRAWL_SETTINGS,
               *extra]
        if not a.resident and not a.memray:
            cmd += ["-s", 'EXTENSIONS={"memory_snapshots.MemorySnapshots": 0}',
                    "-s", f"MEMORY_SNAPSHOT_OUT={snapshots}", "-s", f"MEMORY_SNAPSHOT_EVERY={a.every}"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "benchmarks"),
                                                                          os.environ.get("PYTHONPATH")]))}
        try:
            with log.open("w") as fh:
                proc = subprocess.Popen(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, env=env)
                peaks = PeakRss(proc.pid, mappings=a.resident)
                if proc.wait() != 0:
                    raise SystemExit(f"the crawl failed; its log: {log}")
                per_process = peaks.stop()
        finally:
            server.terminate()
            server.wait()
        print(f"site: {info.page_count} pages (en, fr)")
        print("peak resident set per process:")
        for pid, (rss, name) in sorted(per_process.items(), key=lambda kv: -kv[1][0]):
            print(f"  {rss:7.0f} MB  {name}")
            if pid in peaks.split:
                anon, files = peaks.split[pid]
                print(f"          anonymous {anon:.0f} MB, file-backed {sum(mb for mb, _ in files):.0f} MB; largest: "
                      + ", ".join(f"{Path(path).name} {mb:.0f} MB" for mb, path in files[:3]))
        if a.memray:
            print(f"memray: {a.memray} (memray tree / memray flamegraph)")
        elif not a.resident:
            show(snapshots, a.lines)


if __name__ == "__main__":
    main()
