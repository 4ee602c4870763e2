"""The periodic ``bitext:`` progress line, on a fake crawler with a fake clock (no timing)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from bitext_spider.crawl.logstats import (
    BitextLogStats,
    duration,
    eta_seconds,
    frontier_size,
    remaining_pages,
    summary,
)


class FakeStats:
    def __init__(self, **values: Any) -> None:
        self.values = dict(values)

    def get_value(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def get_stats(self) -> dict[str, Any]:
        return dict(self.values)

    def set_value(self, key: str, value: Any) -> None:
        self.values[key] = value


class FakeEngine:
    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler


class FakeCrawler:
    def __init__(self, stats: FakeStats, scheduler: Any = None) -> None:
        self.stats = stats
        self.engine = FakeEngine(scheduler)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def started(stats: FakeStats, scheduler: Any = None, cap: int = 0) -> tuple[BitextLogStats, Clock]:
    clock = Clock()
    ext = BitextLogStats(FakeCrawler(stats, scheduler), interval=10, page_cap=cap, clock=clock)
    ext._last = (clock(), stats.get_value("bitext/pages", 0))  # what spider_opened records
    return ext, clock


def test_line_has_rate_frontier_pairs_so_far_and_eta():
    stats = FakeStats(**{"bitext/seeds/sites": 2, "bitext/pages/resumed": 10, "bitext/pages": 0})
    ext, clock = started(stats, scheduler=["r"] * 7, cap=100)
    clock.now += 10
    stats.values.update({"bitext/pages": 50, "bitext/pages/lang/en": 30, "bitext/pages/lang/fr": 20,
                         "bitext/pairs/provisional": 3, "bitext/candidates/compared": 40,
                         "bitext/candidates/size": 9, "bitext/candidates/structure": 4, "bitext/pages/stored": 45})
    # 2 sites x 100 pages, 10 resumed + 50 taken: 140 to go at 5 pages/s.
    assert ext.line() == ("bitext: pages 50 (en:30 fr:20), 5.0 pages/s, frontier 7, pairs so far 3, ETA 28s, "
                          "compared 40, size 9, structure 4, stored 45")
    # The next interval's rate is its own: 60 pages in 30 s; 80 pages to go -> 40 s.
    clock.now += 30
    stats.values["bitext/pages"] = 110
    ext.crawler.engine.scheduler = []
    line = ext.line()
    assert "pages 110 (en:30 fr:20), 2.0 pages/s, frontier 0, pairs so far 3, ETA 40s," in line


def test_no_cap_no_eta_and_final_pairs_at_close():
    stats = FakeStats(**{"bitext/seeds/sites": 1, "bitext/pages": 0})
    ext, clock = started(stats, scheduler=["r"])
    clock.now += 4
    stats.values["bitext/pages"] = 6
    line = ext.line()
    assert "1.5 pages/s, frontier 1, pairs so far 0," in line and "ETA" not in line
    clock.now += 2
    stats.values["bitext/pairs"] = 12
    stats.values["bitext/pairs/provisional"] = 15
    closing = ext.line(closing=True)
    assert "0.0 pages/s" in closing and "pairs 12," in closing and "so far" not in closing


def test_eta_unknown_without_progress_and_zero_at_the_cap():
    stats = FakeStats(**{"bitext/seeds/sites": 3, "bitext/pages": 30})
    ext, clock = started(stats, cap=10)
    clock.now += 30
    assert "0.0 pages/s, pairs so far 0, ETA 0s," in ext.line()  # 3 sites x 10 pages all taken
    stats.values["bitext/seeds/sites"] = 4
    clock.now += 30
    assert "0.0 pages/s, pairs so far 0, ETA unknown," in ext.line()  # 10 to go, nothing moved


def test_closing_line_has_no_eta_and_no_frontier_without_a_scheduler():
    stats = FakeStats(**{"bitext/seeds/sites": 1, "bitext/pages": 5})
    ext, clock = started(stats, scheduler=None, cap=50)
    clock.now += 5
    line = ext.line(closing=True)
    assert "frontier" not in line and "ETA" not in line and "pages 5, 0.0 pages/s, pairs so far 0," in line


def test_frontier_of_a_scheduler_without_len():
    assert frontier_size(FakeCrawler(FakeStats(), scheduler=object())) is None
    assert frontier_size(object()) is None
    assert frontier_size(FakeCrawler(FakeStats(), scheduler=[1, 2, 3])) == 3


def test_eta_helpers():
    stats = {"bitext/seeds/sites": 2, "bitext/pages": 30, "bitext/pages/resumed": 20}
    assert remaining_pages(stats, 100) == 150
    assert remaining_pages(stats, 0) is None and remaining_pages({"bitext/pages": 3}, 100) is None
    assert remaining_pages(stats, 10) == 0
    assert eta_seconds(stats, 100, 3.0) == 50.0
    assert eta_seconds(stats, 100, 0.0) is None and eta_seconds(stats, 100, None) is None
    assert [duration(s) for s in (0, 44.6, 60, 400, 3599, 3725, 90000)] == [
        "0s", "45s", "1m00s", "6m40s", "59m59s", "1h02m", "25h00m"]


def test_summary_without_progress_and_with_many_languages():
    stats = {"bitext/pages": 26, **{f"bitext/pages/lang/{chr(97 + i)}x": 26 - i for i in range(13)}}
    line = summary(stats)
    assert line.startswith("bitext: pages 26 (ax:26 bx:25 ") and "lx:15 ...)" in line and "mx" not in line
    assert "pages/s" not in line and "frontier" not in line and "pairs so far 0" in line


def test_from_crawler_reads_interval_and_page_cap(caplog):
    crawler = get_crawler(settings_dict={"BITEXT_LOGSTATS_INTERVAL": 0})
    with pytest.raises(NotConfigured):
        BitextLogStats.from_crawler(crawler)
    crawler = get_crawler(settings_dict={"BITEXT_LOGSTATS_INTERVAL": 5, "BITEXT_MAX_PAGES_PER_SITE": 40})
    ext = BitextLogStats.from_crawler(crawler)
    assert (ext.interval, ext.page_cap) == (5.0, 40)
    ext.crawler = FakeCrawler(FakeStats(**{"bitext/pages": 2}))
    with caplog.at_level(logging.INFO, logger="bitext_spider.crawl.logstats"):
        ext.log()
    assert [r.getMessage() for r in caplog.records] == ["bitext: pages 2, pairs so far 0, ETA unknown, "
                                                        "compared 0, size 0, structure 0, stored 0"]
