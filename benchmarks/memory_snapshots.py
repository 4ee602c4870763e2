"""A Scrapy extension for benchmarks/profile_memory.py: tracemalloc snapshots of the crawl process.

Enabled with ``-s EXTENSIONS={"memory_snapshots.MemorySnapshots": 0}`` and this folder on
``PYTHONPATH``.  It starts tracemalloc when the crawler is built (imports are done by then, so
what it sees is the crawl's data, not code), and writes the largest allocation sites, by source
line and by file, after every ``MEMORY_SNAPSHOT_EVERY`` stored items and when the spider closes
(before and after the bitext close steps, which run on ``spider_closed``), to
``MEMORY_SNAPSHOT_OUT`` as JSON lines.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import psutil
from scrapy import Spider, signals
from scrapy.crawler import Crawler

TOP = 40


class MemorySnapshots:
    def __init__(self, out: Path, every: int) -> None:
        self.out = out
        self.every = every
        self.items = 0
        self.process = psutil.Process()
        tracemalloc.start(1)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> MemorySnapshots:
        ext = cls(Path(crawler.settings.get("MEMORY_SNAPSHOT_OUT", "memory.jsonl")),
                  crawler.settings.getint("MEMORY_SNAPSHOT_EVERY", 2500))
        crawler.signals.connect(ext.item_scraped, signal=signals.item_scraped)
        # Connected first and last around the bitext runtime's own spider_closed handler.
        crawler.signals.connect(ext.closing, signal=signals.spider_closed)
        return ext

    def item_scraped(self, item: Any, spider: Spider) -> None:
        self.items += 1
        if self.items % self.every == 0:
            self.snapshot(f"{self.items} items")

    def closing(self, spider: Spider, reason: str) -> None:
        self.snapshot("spider closed")

    def snapshot(self, label: str) -> None:
        snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        current, peak = tracemalloc.get_traced_memory()
        record = {
            "label": label,
            "rss_mb": self.process.memory_info().rss / 2**20,
            "traced_mb": current / 2**20,
            "traced_peak_mb": peak / 2**20,
            "by_line": [[str(s.traceback[0]), s.size / 2**20, s.count] for s in snap.statistics("lineno")[:TOP]],
            "by_file": [[s.traceback[0].filename, s.size / 2**20, s.count] for s in snap.statistics("filename")[:TOP]],
        }
        with self.out.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
