"""The stage threads' short kernels hold the GIL; other threads' let it go (matchers/gil_hold.py)."""

from __future__ import annotations

import threading

from scrapy.utils.test import get_crawler
from support import SITE

from bitext_spider.runtime import BitextRuntime
from bitext_spider.spiders.site import SiteSpider
from matchers.gil_hold import hold_short_kernels, holds_short_kernels
from pipelines.content_filter import ContentFilterPipeline
from pipelines.structure_filter import StructureFilterPipeline


def test_the_setting_is_the_calling_threads() -> None:
    seen: list[bool] = []

    def other() -> None:
        seen.append(holds_short_kernels())
        hold_short_kernels()
        seen.append(holds_short_kernels())

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [False, True]
    assert not holds_short_kernels()  # this thread's is untouched


def test_the_content_and_structure_stage_threads_hold_short_kernels(tmp_path) -> None:
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'g.db'}"})
    BitextRuntime.of(crawler).open_site(SITE)
    for cls in (ContentFilterPipeline, StructureFilterPipeline):
        stage = cls.from_crawler(crawler)
        try:
            assert stage._executor.submit(holds_short_kernels).result() is True
        finally:
            stage.close_spider()
    assert not holds_short_kernels()
