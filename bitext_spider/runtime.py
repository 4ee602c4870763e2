"""Per-crawl state shared by the spider and the pipelines through the crawler (no module globals).

``BitextRuntime.of(crawler)`` returns the one runtime of a crawl: its typed config, the store and
its writer thread, the language identifier, the close-time :class:`~bitext_spider.resolution.Resolver`,
and one :class:`SiteState` per site (the index of the site's earlier pages, rebuilt from the
database when a crawl is resumed): the seed sites of the ``site`` spider, and the sites derived
from page URLs for any other spider (docs/addon.md).  ``bitext resolve`` builds one without a
crawler (``BitextRuntime(None, config=..., stats=...)``) to resolve a database's sites.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.link_traps import LinkTraps
from bitext_spider.crawl.recrawl import StoredValidators
from bitext_spider.crawl.seeds import Site, site_from_key
from bitext_spider.garbage_collection import CollectorPace
from bitext_spider.glibc_malloc import heap_trimmer, limit_arenas
from bitext_spider.store.crawl_runs import crawl_settings, finish_run, start_run
from bitext_spider.store.database import Store
from bitext_spider.store.model_registry import ModelRegistry
from bitext_spider.store.open_errors import describe as describe_database_error
from bitext_spider.store.records import PageRecord
from bitext_spider.store.writer import StoreWriter
from bitext_spider.store.writer_lock import WriterLock
from bitext_spider.user_errors import DatabaseError
from bitext_spider.workers.page_parser import PageParser
from matchers.page.language_id import LanguageIdentifier
from matchers.page.main_content import RepeatedBlocks
from matchers.page.page_content import page_content
from matchers.page.page_parse import ParsedPage, parse_page
from matchers.site.content_shelf import SpillFile
from matchers.site.page_index import PageFeatures, SiteIndex
from matchers.site.site_evidence import SiteEvidence

if TYPE_CHECKING:
    from bitext_spider.resolution import Resolver

logger = logging.getLogger(__name__)

_ATTR = "_bitext_runtime"


@dataclass
class SiteState:
    """One site during a crawl."""

    site: Site
    site_id: int
    index: SiteIndex
    stored_urls: set[str] = field(default_factory=set)  # stored, or (page middleware) on their way
    frontier: list[str] = field(default_factory=list)
    pages_seen: int = 0  # HTML pages taken (for BITEXT_MAX_PAGES_PER_SITE)
    requested: int = 0  # requests in the site's budget (for BITEXT_MAX_PAGES_PER_SITE)
    requested_urls: set[str] = field(default_factory=set)
    boilerplate: RepeatedBlocks = field(default_factory=RepeatedBlocks)
    evidence: SiteEvidence = field(default_factory=SiteEvidence)
    traps: LinkTraps = field(default_factory=LinkTraps)
    # A resumed site's stored pages as a repeated crawl's plan needs them (bitext_spider.crawl.recrawl);
    # the spider reads them once at start and clears them.
    recrawl_pages: list[StoredValidators] = field(default_factory=list)
    # Stored pages a repeated crawl fetched again and found changed: their new (ETag,
    # Last-Modified), written at close so the next run asks with them.
    refreshed: dict[str, tuple[str, str]] = field(default_factory=dict)
    started_at: float | None = None  # time.monotonic() of the site's first request (BITEXT_SITE_TIME_LIMIT)
    # A resumed focused crawl's frontier: each link's best request priority on the stored pages.
    frontier_priorities: dict[str, int] = field(default_factory=dict)
    timed_out: bool = False

    @property
    def key(self) -> str:
        return self.site.key


class Stats:
    """The part of Scrapy's stats collector the runtime uses, for runs without a crawler."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}

    def get_value(self, key: str, default: Any = None) -> Any:
        return self._values.get(key, default)

    def set_value(self, key: str, value: Any) -> None:
        self._values[key] = value

    def inc_value(self, key: str, count: int = 1, start: int = 0) -> None:
        self._values[key] = self._values.get(key, start) + count

    def get_stats(self) -> dict[str, Any]:
        return dict(self._values)


class BitextRuntime:
    def __init__(self, crawler: Any, config: BitextConfig | None = None, stats: Any = None) -> None:
        self.crawler = crawler
        self.config = config if config is not None else BitextConfig.from_crawler(crawler)
        self._stats = stats
        # Before the writer's thread and the stages' threads start (bitext_spider.glibc_malloc).
        if self.config.enabled:
            limit_arenas(self.config.malloc_arenas)
        self.writer_lock = WriterLock(self.config.db_url)
        try:
            self.store = Store(self.config.db_url)
        except Exception as exc:  # a bad URL, a server that does not answer, a file that is not a database
            self.writer_lock.release()
            raise DatabaseError(describe_database_error(self.config.db_url, exc)) from exc
        # The crawl's row in crawl_runs (its settings now, its stats at close); none for `bitext resolve`.
        self._run_id = (start_run(self.store.engine, getattr(crawler.spidercls, "name", "") or "",
                                  crawl_settings(crawler.settings)) if crawler is not None else None)
        self.writer = StoreWriter(
            self.store,
            batch=self.config.writer_batch,
            interval=self.config.writer_interval,
            on_written=self._written,
        )
        self.language = LanguageIdentifier()
        self.parse_options = self.config.parse_options()
        # Parses each HTML page in worker processes, for the spider's links and the stages alike.
        self.page_parser = (
            PageParser(self.config, crawler)
            if crawler is not None and self.config.enabled and self.config.parse_workers > 0 else None
        )
        self.models = ModelRegistry(self.store, self.config.content_model_save_interval)
        self.sites: dict[str, SiteState] = {}
        # The older pages' main content of every site: one file for the crawl (one descriptor
        # however many sites it crawls), opened when the first page's content is written.
        self.content_spill = SpillFile(self.config.spill_dir or None)
        # Sites are opened from worker threads (asyncio.to_thread): one at a time, so two pages
        # of a new site arriving together open it once.
        self._open_lock = threading.Lock()
        self._resolver: Resolver | None = None
        self.pages_submitted = 0  # pages handed to the writer (by the store stage)
        self._resolved_at: int | None = None  # pages_submitted when the sites were last resolved
        self._resolve_lock = threading.Lock()
        self._closed = False
        self._switch_interval = sys.getswitchinterval()
        if self.config.enabled and self.config.gil_switch_interval > 0:
            sys.setswitchinterval(self.config.gil_switch_interval)
        self._collector = (CollectorPace(self.config.gc_threshold,
                                         heap_trimmer() if self.config.malloc_trim else None)
                           if self.config.enabled and self.config.gc_threshold > 0 else None)

    async def parse_page(self, body: bytes, content_type: str | None, url: str) -> ParsedPage:
        """The page's one parse (matchers.page.page_parse.parse_page): in the parse worker when
        there is one, else here.  Raises ParseTimeout when the worker gives up on the page."""
        if self.page_parser is not None:
            return await self.page_parser.parse(body, content_type, url)
        return parse_page(body, content_type, url, self.parse_options, self.language)

    @property
    def stats(self) -> Any:
        # The crawler's stats exist only once the crawl starts, after components are built.
        return self._stats if self._stats is not None else self.crawler.stats

    @property
    def resolver(self) -> Resolver:
        """The close-time sequence, its steps turned on by the settings (built on first use)."""
        if self._resolver is None:
            from bitext_spider.resolution import Resolver  # its steps' modules import this one

            self._resolver = Resolver(self)
        return self._resolver

    @classmethod
    def of(cls, crawler: Any) -> BitextRuntime:
        runtime = getattr(crawler, _ATTR, None)
        if runtime is None:
            runtime = cls(crawler)
            setattr(crawler, _ATTR, runtime)
        return runtime

    def _written(self, records: list[PageRecord]) -> None:
        self.stats.inc_value("bitext/pages/stored", len(records))

    def site(self, key: str) -> SiteState:
        """The state of the site ``key`` (a page item's ``site``), opened on first use like any
        other: a page of a site nobody opened still has its index, resumed from the database."""
        state = self.sites.get(key)
        return state if state is not None else self.open_site(site_from_key(key))

    def open_site(self, site: Site) -> SiteState:
        """Register a site; a site already in the database is resumed from its stored pages."""
        with self._open_lock:
            state = self.sites.get(site.key)
            return state if state is not None else self._open_site(site)

    def _open_site(self, site: Site) -> SiteState:
        site_id = self.store.ensure_site(site.key, list(site.start_urls))
        state = SiteState(
            site=site,
            site_id=site_id,
            index=SiteIndex(site.key, self.config.content_in_memory, self.content_spill),
            boilerplate=RepeatedBlocks(self.config.boilerplate_min_pages, self.config.boilerplate_min_share),
            evidence=SiteEvidence(self.config.url_key_share),
            traps=LinkTraps(self.config.trap_min_pages, self.config.trap_min_yield, self.config.trap_max_repeats),
        )
        links: dict[str, None] = {}
        for page in self.store.stored_pages(site_id):
            state.stored_urls.add(page.url)
            links.update(dict.fromkeys(page.links))
            state.recrawl_pages.append(
                StoredValidators(page.url, page.links, page.published, page.etag, page.last_modified))
            if page.topic and page.topic.get("links"):
                best = state.frontier_priorities
                for url, prio in zip(page.links, page.topic["links"], strict=False):
                    if prio > best.get(url, 0):
                        best[url] = prio
            if page.eligible and page.lang and page.tokens is not None:
                content = page_content(page.paragraphs, page.lang) if page.paragraphs else None
                # The same admission as a live page's (pipelines/size_filter.py); a stored page was
                # admitted when it arrived, so it is registered again, in arrival order.
                state.index.admit(
                    PageFeatures(page.url, page.lang, page.size_bytes, page.size_chars, page.n_tags,
                                 page.n_paragraphs, page.tokens, content, page.published, page.canonical)
                )
                if self.config.evidence_enabled:
                    state.evidence.add(page.url, page.lang, page.outlinks, page.images, page.paragraphs,
                                       page.canonical)
        state.pages_seen = state.requested = len(state.stored_urls)
        state.frontier = [u for u in links if u not in state.stored_urls]
        if state.stored_urls:
            logger.info(
                "site %s: resuming with %d stored pages (%d indexed), %d links to follow",
                site.key, len(state.stored_urls), len(state.index), len(state.frontier),
            )
            self.stats.inc_value("bitext/pages/resumed", len(state.stored_urls))
        self.sites[site.key] = state
        return state

    def save_models(self) -> None:
        """Store each site's training, then fold it into the language pairs' models."""
        try:
            if self.config.content_model_fold:
                saved, _ = self.models.save_and_fold([s.site_id for s in self.sites.values()])
            else:
                saved = self.models.save_all()
        except Exception:
            # The pages and pairs are stored; unfolded training waits in site_models (bitext db fold).
            logger.exception("saving the translation models failed")
            self.stats.inc_value("bitext/errors/models")
            return
        if saved:
            logger.info("saved the training of %d site models", saved)
        if self.models.saves:
            self.stats.set_value("bitext/models/saved", self.models.saves)
        if self.models.folded_sites:
            self.stats.set_value("bitext/models/folded_sites", self.models.folded_sites)
            self.stats.set_value("bitext/models/folded_sentences", self.models.folded_sentences)

    @property
    def resolved(self) -> bool:
        """Whether the sites were resolved after the last page was handed to the writer."""
        return self._resolved_at == self.pages_submitted

    def resolve(self, wait_saved: bool = True) -> Counter[str]:
        """Commit the pages waiting for the writer, then resolve every site (the crawl calls it
        when the spider goes idle, from a thread).  Returns the final pairs by language pair.
        With ``wait_saved`` false the models' save may still run on return (Resolver.run):
        :meth:`models_saved` waits for it, and so does :meth:`close`."""
        with self._resolve_lock:
            # The writer's last commit runs while the held-back training is taken and the models'
            # save begins beside the steps.
            return self._resolve(self.pages_submitted, stored=self.writer.request_flush().wait,
                                 wait_saved=wait_saved)

    def models_saved(self) -> None:
        """Wait for a models' save that :meth:`resolve` left running."""
        with self._resolve_lock:
            self.resolver.wait_saved()

    def _resolve(self, submitted: int, stored: Callable[[], object] | None = None,
                 wait_saved: bool = True) -> Counter[str]:
        total = self.resolver.run(list(self.sites.values()), stored=stored, wait_saved=wait_saved)
        self._resolved_at = submitted
        return total

    def close(self) -> None:
        """Flush pending writes, resolve every site unless nothing changed since the last
        resolution, and release everything (idempotent)."""
        if self._closed:
            return
        self._closed = True
        sys.setswitchinterval(self._switch_interval)
        if self._collector is not None:
            self._collector.stop()
            self.stats.set_value("bitext/time/gc_s", round(self._collector.seconds, 3))
            self.stats.set_value("bitext/gc/collections", self._collector.collections)
        if self.page_parser is not None:
            self.page_parser.close()
        self.models.stop_snapshots()
        # A resolution started at idle may still run when a crawl is stopped: it is waited for.
        with self._resolve_lock:
            self.writer.flush()
            self.writer.close()
            if not self.resolved:
                self._resolve(self.pages_submitted)
            self.resolver.wait_saved()
        if self.writer.failures:
            self.stats.set_value("bitext/errors/store", self.writer.failures)
        refreshed = {url: v for state in self.sites.values() for url, v in state.refreshed.items()}
        if refreshed:
            try:
                self.store.update_validators(refreshed)
            except Exception:
                # Only costs the next run a full answer instead of a 304 for these pages.
                logger.exception("storing the validators of %d refreshed pages failed", len(refreshed))
        if self._run_id is not None:
            try:
                finish_run(self.store.engine, self._run_id, self.stats.get_stats())
            except Exception:  # only the viewer's record of the crawl is incomplete
                logger.exception("recording the end of the crawl failed")
        self.store.close()
        self.content_spill.close()
        self.writer_lock.release()
