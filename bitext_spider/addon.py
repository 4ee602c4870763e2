"""The bitext add-on: ``ADDONS = {"bitext_spider.addon.BitextAddon": 500}`` in a Scrapy project's
settings turns the matching on for every spider of the project (docs/addon.md).

It adds the page middleware (every HTML response becomes a page item), the matching and store
pipelines in their order, the ``bitext:`` progress line, the robots.txt middleware that is safe
for many waiting requests, a log formatter that skips the per-item DEBUG messages no handler
writes (bitext_spider.crawl.log_formatter), and the ``BITEXT_*`` defaults, all with the
``addon`` priority or only where the project has not named the component itself, so the
project's own settings win.  The project's own settings module (bitext_spider.settings) enables
the crawl through it too.
"""

from __future__ import annotations

import logging
from dataclasses import fields
from typing import Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobotsTxtMiddleware
from scrapy.settings import BaseSettings
from scrapy.utils.misc import load_object

from bitext_spider.config import BitextConfig

logger = logging.getLogger(__name__)

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

# The matching stages and the store, in the order a page goes through them.  A project changes one
# by naming it in its own ITEM_PIPELINES (None switches it off) and adds its own filter there.
ITEM_PIPELINES: dict[str, int] = {
    "pipelines.page_parse.PageParsePipeline": 50,
    "pipelines.normalize.NormalizePipeline": 100,
    "pipelines.language.LanguagePipeline": 200,
    "pipelines.main_content.MainContentPipeline": 250,
    # Only with a domain (a focused crawl): pages off the domain are not paired.
    "pipelines.topic_relevance.TopicRelevancePipeline": 251,
    "pipelines.url_keys.UrlKeyPipeline": 252,
    "pipelines.link_evidence.LinkEvidencePipeline": 254,
    "pipelines.image_evidence.ImageEvidencePipeline": 256,
    "pipelines.fingerprint.FingerprintPipeline": 258,
    "pipelines.near_duplicates.NearDuplicatePipeline": 259,
    "pipelines.size_filter.SizeFilterPipeline": 300,
    "pipelines.structure_filter.StructureFilterPipeline": 400,
    "pipelines.content_filter.ContentFilterPipeline": 500,
    "pipelines.dictionary_filter.DictionaryFilterPipeline": 550,
    "pipelines.pairs.PairPipeline": 850,
    "pipelines.store.StorePipeline": 900,
    # Last: page items leave the item flow here, so feeds get pairs and the spider's own items.
    "pipelines.pairs.PageSinkPipeline": 1000,
}
SPIDER_MIDDLEWARES: dict[str, int] = {
    # Next to the spider, before Scrapy's depth and offsite middlewares drop any of its requests:
    # the page's links are the requests the spider made from it.
    "bitext_spider.crawl.middlewares.PageItemMiddleware": 950,
}
EXTENSIONS: dict[str, int] = {
    "bitext_spider.crawl.logstats.BitextLogStats": 500,
    "bitext_spider.crawl.pair_flow.FinalPairs": 510,
    "bitext_spider.crawl.feed_guard.FeedGuard": 520,
    # Off unless BITEXT_WARC_OUTPUT is set; on with BITEXT_ENABLED=False too (a plain crawl archives).
    "bitext_spider.crawl.warc_output.WarcOutput": 530,
}
DOWNLOADER_MIDDLEWARES: dict[str, int] = {
    # Before anything else spends work on a request its site no longer wants.
    "bitext_spider.crawl.site_limits.SiteLimitsMiddleware": 50,
}
ROBOTSTXT_MIDDLEWARE = "bitext_spider.crawl.middlewares.RobotsTxtMiddleware"
LOG_FORMATTER = "bitext_spider.crawl.log_formatter.QuietLogFormatter"
SCRAPER_BACKLOG_BYTES = 1_000_000


def bitext_defaults() -> dict[str, Any]:
    """Every ``BITEXT_*`` setting with its default (the typed config's field defaults)."""
    defaults = BitextConfig()
    names = BitextConfig.setting_names()
    return {names[f.name]: getattr(defaults, f.name) for f in fields(BitextConfig) if not f.name.startswith("_")}


def _names(settings: BaseSettings, name: str, cls: type) -> bool:
    """Does the component priority dict ``name`` name ``cls`` (as a class or an import path)?"""
    return any(load_object(key) is cls for key in settings.getdict(name))


class BitextAddon:
    """Scrapy add-on of the bitext matching (docs/addon.md)."""

    def update_settings(self, settings: BaseSettings) -> None:
        # The stages await asyncio (worker processes, the writer thread): Twisted's asyncio
        # reactor, Scrapy's default, is required.  The reactor is installed after the add-ons
        # are applied (or, by ``scrapy crawl``, before: then it is the asyncio one whenever this
        # setting names it), so a project that chose another one is told so here.
        settings.set("TWISTED_REACTOR", ASYNCIO_REACTOR, priority="addon")
        if settings.get("TWISTED_REACTOR") != ASYNCIO_REACTOR:
            raise RuntimeError(
                f"{type(self).__module__}.{type(self).__name__} needs TWISTED_REACTOR = {ASYNCIO_REACTOR!r}"
                f" (the project sets {settings.get('TWISTED_REACTOR')!r})"
            )
        for name, value in bitext_defaults().items():
            settings.set(name, value, priority="addon")
        # Scrapy's messages for each response and item, built only when a handler writes them.
        settings.set("LOG_FORMATTER", LOG_FORMATTER, priority="addon")
        if settings.getbool("BITEXT_ENABLED", True):
            # Scrapy lets responses worth 5 MB wait for the item pipelines.  The stages are what
            # paces a crawl, so on a site of small pages that is about 800 pages still to match
            # when the last response arrives (5 s of a 10,000-page crawl); 1 MB keeps the
            # downloader as busy and the pages' results closer to their download.
            settings.set("SCRAPER_SLOT_MAX_ACTIVE_SIZE", SCRAPER_BACKLOG_BYTES, priority="addon")
        for setting, components in (
            ("ITEM_PIPELINES", ITEM_PIPELINES),
            ("SPIDER_MIDDLEWARES", SPIDER_MIDDLEWARES),
            ("DOWNLOADER_MIDDLEWARES", DOWNLOADER_MIDDLEWARES),
            ("EXTENSIONS", EXTENSIONS),
        ):
            for path, order in components.items():
                # A component the project names itself (even as None, to switch it off) keeps
                # the project's entry.
                settings.setdefault_in_component_priority_dict(setting, load_object(path), order)
        ours = load_object(ROBOTSTXT_MIDDLEWARE)
        if not (_names(settings, "DOWNLOADER_MIDDLEWARES", ScrapyRobotsTxtMiddleware)
                or _names(settings, "DOWNLOADER_MIDDLEWARES", ours)):
            # In place of Scrapy's, at its place in the chain, unless the project has placed
            # either of them itself.
            order = settings.getdict("DOWNLOADER_MIDDLEWARES_BASE").get(
                "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware", 100)
            settings.set_in_component_priority_dict("DOWNLOADER_MIDDLEWARES", ScrapyRobotsTxtMiddleware, None)
            settings.set_in_component_priority_dict("DOWNLOADER_MIDDLEWARES", ours, order)
