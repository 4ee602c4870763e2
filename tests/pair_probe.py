"""A test extension: records every ``pair_found`` signal (item, spider, pages processed by then)
as JSON lines in the file named by the PAIR_PROBE_FILE setting."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from bitext_spider.signals import pair_found


class PairProbe:
    def __init__(self, crawler: Any, path: str) -> None:
        self.crawler = crawler
        self.path = path

    @classmethod
    def from_crawler(cls, crawler: Any) -> PairProbe:
        probe = cls(crawler, crawler.settings.get("PAIR_PROBE_FILE"))
        crawler.signals.connect(probe.found, signal=pair_found)
        return probe

    def found(self, item: Any, spider: Any) -> None:
        row = {"item": dataclasses.asdict(item), "spider": getattr(spider, "name", None),
               "pages": self.crawler.stats.get_value("bitext/pages", 0)}
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
