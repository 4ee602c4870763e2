"""A Scrapy project of its own that mines bitext with the add-on (docs/addon.md)."""

BOT_NAME = "corpus"
SPIDER_MODULES = ["corpus.spiders"]

# The one line that turns the matching on for every spider of the project.
ADDONS = {"bitext_spider.addon.BitextAddon": 500}
# Optional: `scrapy crawl` exits with status 1 when a feed fails (read before add-ons run).
COMMANDS_MODULE = "bitext_spider.commands"

# The project's own crawl policy; the add-on leaves it alone.
ROBOTSTXT_OBEY = True
AUTOTHROTTLE_ENABLED = True

# Any BITEXT_* setting; these win over the add-on's defaults.
BITEXT_DB_URL = "sqlite:///corpus.db"

# Page items go to the database; this feed takes only the project's own items (pairs: -O pairs.jsonl).
FEEDS = {
    "titles.jsonl": {"format": "jsonlines", "item_classes": ["corpus.spiders.pages.PageTitle"], "overwrite": True},
}
FEED_EXPORT_ENCODING = "utf-8"
