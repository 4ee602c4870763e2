"""Each crawl's row in ``crawl_runs``: written when the crawl's runtime opens the store (the spider,
the start, the settings) and completed when it closes it (the end, the stats), so the viewer can
say what a database was made with.  A crawl that was killed keeps a row without an end."""

from __future__ import annotations

import datetime
import json
import time
from typing import Any

from sqlalchemy import insert, update

from bitext_spider.store.models import CrawlRunRow

# Scrapy settings that shape what a crawl fetches, kept beside every BITEXT_* setting.
SCRAPY_SETTINGS = (
    "BOT_NAME", "USER_AGENT", "ROBOTSTXT_OBEY", "DEPTH_LIMIT", "CONCURRENT_REQUESTS",
    "CONCURRENT_REQUESTS_PER_DOMAIN", "DOWNLOAD_DELAY", "DOWNLOAD_TIMEOUT", "DOWNLOAD_MAXSIZE",
    "AUTOTHROTTLE_ENABLED", "AUTOTHROTTLE_START_DELAY", "AUTOTHROTTLE_TARGET_CONCURRENCY",
    "CLOSESPIDER_PAGECOUNT", "CLOSESPIDER_TIMEOUT", "REDIRECT_MAX_TIMES",
)


def _plain(value: Any) -> Any:
    """A JSON value for ``value`` (settings and stats hold datetimes, tuples, classes, ...); NaN
    stays a float, which the store's JSON serializer handles on each database."""
    def default(obj: Any) -> Any:
        if isinstance(obj, datetime.datetime):
            return obj.isoformat()
        if isinstance(obj, set | frozenset):
            return sorted(map(str, obj))
        return str(obj)

    return json.loads(json.dumps(value, default=default))


def crawl_settings(settings: Any) -> dict[str, Any]:
    """Every ``BITEXT_*`` setting and the :data:`SCRAPY_SETTINGS` of a Scrapy ``Settings``."""
    out = {name: settings.get(name) for name in sorted(settings) if str(name).startswith("BITEXT_")}
    for name in SCRAPY_SETTINGS:
        out[name] = settings.get(name)
    return {k: _plain(v) for k, v in out.items()}


def start_run(engine: Any, spider: str, settings: dict[str, Any]) -> int:
    with engine.begin() as conn:
        result = conn.execute(insert(CrawlRunRow).values(spider=spider[:255], started_at=time.time(),
                                                         settings=settings))
        return int(result.inserted_primary_key[0])


def finish_run(engine: Any, run_id: int, stats: dict[str, Any]) -> None:
    plain = _plain(stats)
    with engine.begin() as conn:
        conn.execute(update(CrawlRunRow).where(CrawlRunRow.id == run_id)
                     .values(finished_at=time.time(), stats=plain))
