"""Scrapy settings of the bitext project (the ``scrapy`` entry point and scrapy.cfg name this module).

``BITEXT_*`` settings are documented in docs/settings.md and parsed by bitext_spider.config.
"""

BOT_NAME = "bitext_spider"
SPIDER_MODULES = ["bitext_spider.spiders"]
NEWSPIDER_MODULE = "bitext_spider.spiders"

USER_AGENT = "bitext-spider/0.1 (parallel corpus crawler; +https://github.com/bitext-spider)"
ROBOTSTXT_OBEY = True

# Polite by default; a crawl of a local test site lowers AUTOTHROTTLE_START_DELAY.
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 4.0
CONCURRENT_REQUESTS = 32
CONCURRENT_REQUESTS_PER_DOMAIN = 8

# Scrapy starts CONCURRENT_ITEMS asyncio tasks for every response's output, whatever its size (a
# per-response limit, default 100). The spider yields one item a page, so a few tasks are enough;
# 100 cost about 10 s of the reactor thread in a 10,000-page crawl (docs/benchmarks.md (c)).
CONCURRENT_ITEMS = 8

DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 16 * 1024 * 1024
DOWNLOAD_WARNSIZE = 4 * 1024 * 1024
REDIRECT_MAX_TIMES = 10
RETRY_TIMES = 2

# Breadth-first, so every language's pages arrive early and a page cap samples all of them.
DEPTH_PRIORITY = 1
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"

DOWNLOADER_MIDDLEWARES = {
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "bitext_spider.middlewares.RobotsTxtMiddleware": 100,
}

ITEM_PIPELINES = {
    "pipelines.page_parse.PageParsePipeline": 50,
    "pipelines.normalize.NormalizePipeline": 100,
    "pipelines.language.LanguagePipeline": 200,
    "pipelines.main_content.MainContentPipeline": 250,
    "pipelines.url_keys.UrlKeyPipeline": 252,
    "pipelines.link_evidence.LinkEvidencePipeline": 254,
    "pipelines.image_evidence.ImageEvidencePipeline": 256,
    "pipelines.fingerprint.FingerprintPipeline": 258,
    "pipelines.near_duplicates.NearDuplicatePipeline": 259,
    "pipelines.size_filter.SizeFilterPipeline": 300,
    "pipelines.structure_filter.StructureFilterPipeline": 400,
    "pipelines.content_filter.ContentFilterPipeline": 500,
    "pipelines.dictionary_filter.DictionaryFilterPipeline": 550,
    "pipelines.decision.DecisionPipeline": 800,
    "pipelines.pairs.PairPipeline": 850,
    "pipelines.store.StorePipeline": 900,
    "pipelines.pairs.PageSinkPipeline": 1000,
}
EXTENSIONS = {
    "bitext_spider.logstats.BitextLogStats": 500,
    "bitext_spider.pair_flow.FinalPairs": 510,
    "bitext_spider.feed_guard.FeedGuard": 520,
}
# The project's `crawl` command: Scrapy's, with a non-zero exit status when a feed failed
# (bitext_spider.feed_guard).
COMMANDS_MODULE = "bitext_spider.commands"

TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"

BITEXT_ENABLED = True
BITEXT_DB_URL = "sqlite:///bitext.db"
BITEXT_LANGS = None
BITEXT_MAX_PAGES_PER_SITE = 0
