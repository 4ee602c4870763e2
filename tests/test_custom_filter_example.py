"""The custom-filter example of docs/custom_filter.md, run in the pipeline chain: its ``x_``
score is stored with the candidate and counts in the decision."""

import asyncio
import sys
from pathlib import Path

from scrapy.utils.test import get_crawler
from support import EN_A, FR_A, SITE, item, page_html

from bitext_spider.runtime import BitextRuntime
from bitext_spider.spiders.site import SiteSpider
from bitext_spider.store.database import Store
from pipelines.content_filter import ContentFilterPipeline
from pipelines.fingerprint import FingerprintPipeline
from pipelines.image_evidence import ImageEvidencePipeline
from pipelines.language import LanguagePipeline
from pipelines.link_evidence import LinkEvidencePipeline
from pipelines.main_content import MainContentPipeline
from pipelines.near_duplicates import NearDuplicatePipeline
from pipelines.normalize import NormalizePipeline
from pipelines.size_filter import SizeFilterPipeline
from pipelines.store import StorePipeline
from pipelines.structure_filter import StructureFilterPipeline
from pipelines.url_keys import UrlKeyPipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "examples"))
from shared_numbers import SharedNumbersPipeline, numbers  # noqa: E402

EN = [*EN_A, "The library has 12,500 books and opened in 1987."]
FR = [*FR_A, "La bibliothèque possède 12,500 livres et a ouvert en 1987."]


def test_numbers():
    assert numbers("opened in 1987 at 9:30, price 38,50") == {"1987", "9:30", "38,50"}


def test_example_filter_enters_the_decision(tmp_path):
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'x.db'}"})
    runtime = BitextRuntime.of(crawler)
    runtime.open_site(SITE)
    classes = (NormalizePipeline, LanguagePipeline, MainContentPipeline, UrlKeyPipeline, LinkEvidencePipeline,
               ImageEvidencePipeline, FingerprintPipeline, NearDuplicatePipeline, SizeFilterPipeline,
               StructureFilterPipeline, ContentFilterPipeline, SharedNumbersPipeline, StorePipeline)
    stages = [cls.from_crawler(crawler) for cls in classes]

    async def run(it):
        for stage in stages:
            result = stage.process_item(it)
            if asyncio.iscoroutine(result):
                await result

    asyncio.run(run(item("http://s.test/en/a", page_html("en", EN))))
    asyncio.run(run(item("http://s.test/fr/a", page_html("fr", FR))))
    for stage in stages:
        if hasattr(stage, "close_spider") and not asyncio.iscoroutinefunction(stage.close_spider):
            stage.close_spider()
    runtime.close()
    store = Store(runtime.config.db_url, create=False)
    cand = next(iter(store.candidates()))
    pairs = list(store.pairs())
    store.close()
    assert cand.scores["x_numbers"] == 0.2  # both numbers shared: jaccard 1
    decision = cand.scores["decision"]
    assert decision["terms"]["x_numbers"] == 0.2 and decision["accepted"]
    assert cand.score == decision["score"]
    assert len(pairs) == 1
