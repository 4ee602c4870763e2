"""``bitext mine-warc``: mine WARC files as a crawl, without the network.

    bitext mine-warc FILE.warc.gz [FILE ...] --db URL [--seeds FILE] [--langs en,fr] [-s NAME=VALUE ...]

Runs the ``warc`` spider (bitext_spider.spiders.warc) in this process with the project's settings
(those of ``scrapy crawl`` from the project root, then ``-s``), so the pages of the archive go
through the same stages into the database and are resolved into pairs at the end, as a crawl's.
Files are read in the order given (a shell glob sorts ``PATH-00000.warc.gz``, ``PATH-00001...``).
A file that is missing, not a WARC, or a WET/WAT file is refused before anything runs; one that is
cut short is mined up to the fault and reported; either way the command exits with status 2.

Wire into ``bitext_spider.commands.cli.build_parser`` with ``mine_warc.add_parser(sub)``.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from typing import Any

from bitext_spider.config import BitextConfig, default
from bitext_spider.user_errors import ConfigError, DatabaseError, UserError


def _url(value: str) -> str:
    return value if "://" in value else f"sqlite:///{value}"


def _watch(started: Any, errors: list[BaseException]) -> None:
    """Keep the exception that stopped the crawl from starting (a Deferred or a Future)."""
    import asyncio

    from twisted.internet.defer import Deferred

    if isinstance(started, Deferred):
        started.addErrback(lambda failure: errors.append(failure.value))
    elif isinstance(started, asyncio.Future):
        def done(task: asyncio.Future) -> None:
            if not task.cancelled() and task.exception() is not None:
                errors.append(task.exception())  # type: ignore[arg-type]
        started.add_done_callback(done)


def _check_database(url: str) -> None:
    """Open the database as the crawl will, so a URL that cannot be used, or a SQLite file another
    crawl is writing, is one line before Scrapy starts."""
    from bitext_spider.store.database import Store
    from bitext_spider.store.open_errors import describe
    from bitext_spider.store.writer_lock import WriterLock

    lock = WriterLock(url)  # raises DatabaseError with its own line
    try:
        Store(url).close()
    except Exception as exc:
        raise DatabaseError(describe(url, exc)) from exc
    finally:
        lock.release()


def cmd_mine_warc(args: argparse.Namespace) -> int:
    from scrapy.crawler import CrawlerProcess

    from bitext_spider.crawl.seeds import load_seeds
    from bitext_spider.demo.run import project_settings
    from bitext_spider.spiders.warc import WarcSpider, archive_files
    from bitext_spider.warc.archive_reader import WarcInputError, check_archive

    files = archive_files(args.files)
    if not files:
        raise WarcInputError(f"no WARC file matches {' '.join(args.files)}")
    for path in files:
        check_archive(path)  # before a database is opened: bad input changes nothing
    settings = project_settings()
    for item in args.settings:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UserError(f"-s takes NAME=VALUE, got {item!r}")
        settings.set(name, value, priority="cmdline")
    url = _url(args.db)
    settings.set("BITEXT_DB_URL", url, priority="cmdline")
    try:
        BitextConfig.from_settings(settings)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    if args.seeds:
        load_seeds(args.seeds)  # a missing file or one without a valid line: one line, nothing run
    _check_database(url)

    process = CrawlerProcess(settings)
    crawler = process.create_crawler(WarcSpider)
    errors: list[BaseException] = []
    _watch(process.crawl(crawler, files=files, seeds=args.seeds, langs=args.langs), errors)
    process.start()
    for exc in errors:
        if isinstance(exc, UserError):
            raise exc
        traceback.print_exception(exc)
        return 1
    spider = crawler.spider
    assert isinstance(spider, WarcSpider)
    stats = crawler.stats.get_stats() if crawler.stats is not None else {}
    print(f"bitext: {spider.pages} pages from {stats.get('bitext/warc/read/responses', 0)} responses "
          f"({stats.get('bitext/warc/read/records', 0)} records of {len(files)} files, "
          f"{stats.get('bitext/warc/sites', 0)} sites), {stats.get('bitext/pairs', 0)} pairs, into {url}",
          file=sys.stderr)
    for failure in spider.failures:
        print(f"bitext: error: {failure} (the records before it were mined)", file=sys.stderr)
    if spider.failures:
        return 2
    if stats.get("bitext/errors/close_step") or stats.get("bitext/errors/models"):
        print("bitext: a close step failed (see the messages above)", file=sys.stderr)
        return 1
    return 0


def add_parser(sub: Any) -> None:
    mw = sub.add_parser("mine-warc", help="mine the responses of WARC files (a crawl's archive, Common Crawl) "
                        "into the database, as a crawl of them would, without the network")
    mw.add_argument("files", nargs="+", metavar="FILE",
                    help="WARC files (.warc.gz, .warc; ARC too), read in this order; glob patterns are expanded")
    mw.add_argument("--db", default=default("BITEXT_DB_URL"), help="SQLAlchemy URL or SQLite file path")
    mw.add_argument("--seeds", metavar="FILE",
                    help="seeds file whose lines group hosts into sites (one site a line, as for a crawl); "
                         "hosts not in it are a site each")
    mw.add_argument("--langs", metavar="L1,L2", help="languages of interest (BITEXT_LANGS), e.g. en,fr")
    mw.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                    help="a setting, as `scrapy crawl -s` takes it (e.g. BITEXT_ENABLED=False)")
    mw.set_defaults(func=cmd_mine_warc)
