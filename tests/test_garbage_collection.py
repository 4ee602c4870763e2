"""The collector's pacing during a crawl is set, counted and put back."""

from __future__ import annotations

import gc

import pytest
from scrapy.utils.test import get_crawler

from bitext_spider.garbage_collection import CollectorPace
from bitext_spider.runtime import BitextRuntime
from bitext_spider.spiders.site import SiteSpider


def test_thresholds_and_freeze_for_the_crawl_then_back() -> None:
    gc.unfreeze()  # as in a process where no crawl runs
    saved = gc.get_threshold()
    pace = CollectorPace(12_345)
    try:
        assert gc.get_threshold()[0] == 12_345
        assert gc.get_freeze_count() > 0  # the objects of this process so far
        gc.collect(0)
        gc.collect(0)
        assert pace.collections >= 2 and pace.seconds > 0
    finally:
        pace.stop()
    pace.stop()  # idempotent
    assert gc.get_threshold() == saved
    assert gc.get_freeze_count() == 0
    seen = pace.collections
    gc.collect(0)
    assert pace.collections == seen  # no longer counted


def test_the_call_after_each_collection() -> None:
    calls = []
    pace = CollectorPace(50_000, after=lambda: calls.append(1))
    try:
        gc.collect(0)
        gc.collect(0)
    finally:
        pace.stop()
    assert len(calls) == pace.collections >= 2
    gc.collect(0)
    assert len(calls) == pace.collections  # not after stop


@pytest.mark.parametrize(("threshold", "paced"), [(None, True), (0, False)])
def test_a_crawl_runtime_paces_the_collector_until_it_closes(tmp_path, threshold, paced) -> None:
    settings = {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'g.db'}", "BITEXT_PARSE_WORKERS": 0}
    if threshold is not None:
        settings["BITEXT_GC_THRESHOLD"] = threshold
    crawler = get_crawler(SiteSpider, settings)
    crawler.stats.open_spider()
    saved, frozen = gc.get_threshold(), gc.get_freeze_count()
    runtime = BitextRuntime.of(crawler)
    try:
        # (Another test's runtime left open may have paced it already.)
        assert gc.get_threshold()[0] == 50_000 if paced else gc.get_threshold() == saved
        gc.collect(0)
    finally:
        runtime.close()
    assert gc.get_threshold() == saved and gc.get_freeze_count() == frozen
    collections = crawler.stats.get_value("bitext/gc/collections")
    assert (collections is not None and collections >= 1) is paced
    assert (crawler.stats.get_value("bitext/time/gc_s") is not None) is paced
