"""One measured `scrapy crawl`: wall time, CPU, the summed memory of the crawl process and its
workers, and the crawl's own stats.

Shared by the crawl benchmarks (bench_crawl_overhead.py, bench_site_overhead.py).  Memory is the
largest sum of the resident set sizes of the crawl process and every process under it, sampled
from /proc every ``SAMPLE_S`` seconds (``wait4``'s maximum resident set size is per process, so it
would miss the workers).  The stats are read from the "Dumping Scrapy stats" block of the crawl's
log, so the crawl runs at ``LOG_LEVEL=INFO`` into a log file.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

SAMPLE_S = 0.25
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
_STAT = re.compile(r"^\s*'([^']+)': (-?[0-9.e+-]+),?$")


def _tree(root: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(parents.get(pid, ()))
    return out


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


class TreeMemory:
    """Samples the summed RSS of a process and its descendants in a thread until stopped."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = sum(_rss_kb(p) for p in _tree(self.pid))
            self.peak_kb = max(self.peak_kb, total)
            self._stop.wait(SAMPLE_S)

    def stop(self) -> float:
        """Stop sampling; the peak in MB."""
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024


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
    wall = time.perf_counter() - t0
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
        "responses": int(stats.get("response_received_count", 0)),
        "pages": int(stats.get("bitext/pages", 0)),
        "pairs": int(stats.get("bitext/pairs", 0)),
        "after_last_response_s": after,
        "after_share": after / wall if wall else 0.0,
        "memusage_max_mb": stats.get("memusage/max", 0.0) / 2**20,
    }
