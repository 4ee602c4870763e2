"""Scrapy settings of the bitext project (the ``scrapy`` entry point and scrapy.cfg name this module).

The matching is turned on by the add-on, as in any other Scrapy project (docs/addon.md): it adds
the page middleware, the pipelines, the ``bitext:`` log line, the robots.txt fix and the
``BITEXT_*`` defaults (parsed by bitext_spider.config).  What follows is the crawl's own policy.
"""

BOT_NAME = "bitext_spider"
SPIDER_MODULES = ["bitext_spider.spiders"]
NEWSPIDER_MODULE = "bitext_spider.spiders"

ADDONS = {"bitext_spider.addon.BitextAddon": 500}

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

# The project's `crawl` command: Scrapy's, with a non-zero exit status when a feed failed
# (bitext_spider.crawl.feed_guard). Project settings only: Scrapy reads it before any add-on runs.
COMMANDS_MODULE = "bitext_spider.commands"
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
