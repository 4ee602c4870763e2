"""A CPU-time stat in milliseconds, summed in seconds.

Adding each page's ``int(ms)`` to the stat dropped about half a millisecond a page (the structure
filter's stat read 22.6 s where its worker spent 27.9 s, docs/benchmarks.md (c)), so the total is
kept in seconds and the stat set from it.
"""

from __future__ import annotations

from typing import Any


class CpuStat:
    """``bitext/time/<name>_cpu_ms``: the CPU seconds added so far, in whole milliseconds."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.seconds = 0.0

    def add(self, stats: Any, seconds: float) -> None:
        """Add ``seconds`` and publish the total to the crawl's ``stats``."""
        self.seconds += seconds
        stats.set_value(self.key, round(self.seconds * 1000))
