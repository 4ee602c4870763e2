"""One measured `scrapy crawl`: wall time, CPU, the summed memory of the crawl process and its
workers, and the crawl's own stats.

Shared by the crawl benchmarks (bench_crawl_overhead.py, bench_site_overhead.py).  Memory is the
largest sum of the resident set sizes of the crawl process and every process under it, sampled
with psutil every ``SAMPLE_S`` seconds (``wait4``'s maximum resident set size is per process, so it
would miss the workers).  The stats are read from the "Dumping Scrapy stats" block of the crawl's
log, so the crawl runs at ``LOG_LEVEL=INFO`` into a log file.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import psutil

SAMPLE_S = 0.25
_STAT = re.compile(r"^\s*'([^']+)': (-?[0-9.e+-]+),?$")


def _tree_rss(root: psutil.Process) -> int:
    total = 0
    for proc in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):  # a process that ended between the two calls
            total += proc.memory_info().rss
    return total


class TreeMemory:
    """Samples the summed RSS of a process and its descendants in a thread until stopped."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.peak = 0
        self.peak_at = 0.0  # perf_counter() of the sample that found the peak
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(psutil.Error):
                rss = _tree_rss(self.root)
                if rss > self.peak:
                    self.peak, self.peak_at = rss, time.perf_counter()
            self._stop.wait(SAMPLE_S)

    def stop(self) -> float:
        """Stop sampling; the peak in MB."""
        self._stop.set()
        self._thread.join()
        return self.peak / 2**20


def stats_of(log: str) -> dict[str, float]:
    """The numeric entries of the last stats dump in a Scrapy log."""
    start = log.rfind("Dumping Scrapy stats:")
    out: dict[str, float] = {}
    if start < 0:
        return out
    for line in log[start:].splitlines()[1:]:
        if line[:1].isdigit():  # the next log record
            break
        m = _STAT.match(line.replace("{", " ").replace("}", ""))
        if m:
            try:
                out[m.group(1)] = float(m.group(2))
            except ValueError:
                continue
    return out


def run_crawl(cmd: list[str], cwd: Path, log_file: Path) -> dict[str, Any]:
    """Run ``cmd`` (a `scrapy crawl` with ``-s LOG_FILE=log_file -s LOG_LEVEL=INFO``) and measure it."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    memory = TreeMemory(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    end = time.perf_counter()
    wall = end - t0
    peak = memory.stop()
    log = log_file.read_text(errors="replace") if log_file.exists() else ""
    if status != 0:
        raise SystemExit(f"crawl failed ({status}):\n{log[-3000:]}")
    stats = stats_of(log)
    after = stats.get("bitext/time/after_last_response_s", 0.0)
    return {
        "seconds": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": peak,
        # Seconds before the crawl's end: when it is under after_last_response_s the peak came
        # in the close steps, not while pages arrived.
        "peak_before_end_s": end - memory.peak_at if memory.peak_at else 0.0,
        "responses": int(stats.get("response_received_count", 0)),
        "pages": int(stats.get("bitext/pages", 0)),
        "pairs": int(stats.get("bitext/pairs", 0)),
        "after_last_response_s": after,
        "after_share": after / wall if wall else 0.0,
        "memusage_max_mb": stats.get("memusage/max", 0.0) / 2**20,
    }
