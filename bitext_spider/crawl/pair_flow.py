"""Pairs as Scrapy items: provisional ones as pages arrive, the final ones before the spider closes.

Two kinds of :class:`~bitext_spider.items.PairItem` enter Scrapy's item flow (the item pipelines,
then ``item_scraped``, so ``-O pairs.jsonl`` and ``FEEDS`` write them):

* ``provisional``: :class:`ProvisionalPairs` picks them from each new page's candidates after every
  filter that runs at arrival (the rule is in docs/design.md, "Pairs as they are found");
  ``pipelines.pairs.PairPipeline`` sends them;
* ``final``: when the spider goes idle, :class:`FinalPairs` (an extension) keeps it open, resolves
  every site (bitext_spider.resolution) in a thread, sends the final pairs, and lets it close.  The
  final items are the stored pairs of the crawl's sites in ``bitext export pairs`` order, up to
  ``CONCURRENT_ITEMS`` of them in the pipelines at once (a pipeline that awaits something may
  let a later one overtake, as with a callback's items).  If pages arrive after that (another
  ``spider_idle`` handler scheduled requests), the next idle resolves and sends the final pairs
  again.

Items that do not come from a response enter the flow through
``engine.scraper.start_itemproc_async(item, response=None)`` (Scrapy 2.14+).  Every pair is
announced with the :data:`bitext_spider.signals.pair_found` signal just before.

A crawl stopped before it goes idle (Ctrl-C, ``CLOSESPIDER_*``) still resolves its pairs into the
database at close, but sends no final items: the feeds are closing by then.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydispatch.dispatcher import Anonymous, getAllReceivers, liveReceivers
from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured

from bitext_spider import signals as bitext_signals
from bitext_spider.config import BitextConfig
from bitext_spider.items import PairItem
from bitext_spider.runtime import BitextRuntime
from matchers.site.decision import Evidence, decide
from matchers.site.one_to_one import rank_scores
from matchers.site.page_index import CandidateSet

logger = logging.getLogger(__name__)

PROVISIONAL = "provisional"
FINAL = "final"


async def send_pair(crawler: Any, pair: PairItem) -> None:
    """Announce ``pair`` (signal ``pair_found``) and send it through the item pipelines."""
    if _has_receivers(crawler, bitext_signals.pair_found):
        await crawler.signals.send_catch_log_async(signal=bitext_signals.pair_found, item=pair, spider=crawler.spider)
    await crawler.engine.scraper.start_itemproc_async(pair, response=None)


def _has_receivers(crawler: Any, signal: object) -> bool:
    """Whether a handler is connected to ``signal`` (the receivers Scrapy's send would call).
    Sending a signal nobody listens to still costs Scrapy a coroutine, a ``gather`` and its checks
    of the event loop, for every pair of the crawl."""
    sender = getattr(crawler.signals, "sender", Anonymous)
    return next(iter(liveReceivers(getAllReceivers(sender, signal))), None) is not None


def _column(scores: dict[str, np.ndarray], name: str, n: int) -> np.ndarray:
    values = scores.get(name)
    return np.full(n, np.nan) if values is None else np.asarray(values, dtype=np.float64)


def _finite(x: float) -> float | None:
    return None if x != x else float(x)


class ProvisionalPairs:
    """The pairs a crawl can announce as each page arrives, before the site-wide evidence exists.

    A candidate of a new page is accepted when it passed every filter run at arrival (it is still
    in the page's candidate list after the last stage before the store) and, with the decision on,
    when the combined decision (matchers.site.decision) accepts it on the evidence known at arrival:
    structure similarity, content share at the model's maturity then, and users' ``x_`` scores.
    It becomes a provisional pair when it is, at that moment, the best accepted candidate of both
    its pages in that language pair (ties go to the earlier partner).  A later page may become a
    better candidate of either page: that later pair is then announced too, and the earlier one is
    superseded (the final pairs say which stand).  The record is per crawl; a resumed crawl's pages
    stored by an earlier run are not in it.
    """

    def __init__(self, decision: bool, content_required: bool = True) -> None:
        self.decision = decision
        self.content_required = content_required
        # site key -> other language -> page URL -> (best accepted score, partner URL); keyed by
        # language first so that a page's entry needs no key tuple of its own (one per page and
        # language pair, for the whole crawl).
        self._best: dict[str, dict[str, dict[str, tuple[float, str]]]] = {}

    def arrival_scores(self, cand: CandidateSet) -> tuple[np.ndarray, np.ndarray]:
        """Each candidate's score at arrival and whether it is accepted."""
        n = len(cand)
        if not self.decision:
            return rank_scores(cand.scores, n), np.ones(n, dtype=bool)
        structure = _column(cand.scores, "structure", n)
        share = _column(cand.scores, "content_share", n)
        ripe = _column(cand.scores, "content_maturity", n)
        users = {k: _column(cand.scores, k, n) for k in cand.scores if k.startswith("x_")}
        mutual, dictionary = _column(cand.scores, "bag_mutual", n), _column(cand.scores, "dictionary", n)
        scores, accepted = np.zeros(n), np.zeros(n, dtype=bool)
        for k in range(n):
            d = decide(Evidence(
                structure=_finite(structure[k]), content_share=_finite(share[k]),
                maturity=_finite(ripe[k]) or 0.0, bag_mutual=_finite(mutual[k]), dictionary=_finite(dictionary[k]),
                user={name: float(v[k]) for name, v in users.items() if v[k] == v[k]},
            ), self.content_required)
            scores[k], accepted[k] = d.score, d.accepted
        return scores, accepted

    def offer(
        self, site: str, url: str, lang: str, candidates: Sequence[CandidateSet], urls: Callable[[str], list[str]]
    ) -> list[PairItem]:
        """The provisional pairs of the new page ``url`` (in ``lang``), given its candidates
        (``urls(lang)`` maps a language's index rows to URLs)."""
        site_best = self._best.setdefault(site, {})
        toward_mine = site_best.setdefault(lang, {})  # a page -> its best partner in this language
        found: list[PairItem] = []
        for cand in candidates:
            if not len(cand):
                continue
            scores, accepted = self.arrival_scores(cand)
            keep = np.flatnonzero(accepted)
            if not len(keep):
                continue
            structure = np.nan_to_num(_column(cand.scores, "structure", len(cand)), nan=-1.0)
            share = np.nan_to_num(_column(cand.scores, "content_share", len(cand)), nan=-1.0)
            # Best first; equal scores by the finer evidence, as the one-to-one resolution orders them.
            order = sorted(keep.tolist(), key=lambda k: (-scores[k], -structure[k], -share[k], k))
            others = urls(cand.lang)
            top = order[0]
            partner, score = others[int(cand.rows[top])], round(float(scores[top]), 6)
            theirs = toward_mine.get(partner)
            if theirs is None or score > theirs[0]:
                found.append(PairItem(cand.lang, partner, lang, url, score, PROVISIONAL))
            site_best.setdefault(cand.lang, {})[url] = (score, partner)
            for k in order:
                other, s = others[int(cand.rows[k])], round(float(scores[k]), 6)
                mine = toward_mine.get(other)
                if mine is None or s > mine[0]:
                    toward_mine[other] = (s, url)
        return found


class FinalPairs:
    """Extension: resolve the pairs when the spider goes idle and send the final ones as items."""

    def __init__(self, crawler: Any, runtime: BitextRuntime) -> None:
        self.crawler = crawler
        self.runtime = runtime
        self._task: asyncio.Future[None] | None = None
        self._failed = False
        self._last_response: float | None = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> FinalPairs:
        # Checked before the runtime exists: a crawl with bitext off opens no database.
        if not BitextConfig.from_crawler(crawler).enabled:
            raise NotConfigured("BITEXT_ENABLED is off: no pairs")
        ext = cls(crawler, BitextRuntime.of(crawler))
        crawler.signals.connect(ext.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(ext.response_received, signal=signals.response_received)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(ext.item_done, signal=signals.item_dropped)
        crawler.signals.connect(ext.item_done, signal=signals.item_scraped)
        return ext

    def _wake_engine(self) -> None:
        # Scrapy checks whether the spider is idle after each download and otherwise on a 5 s
        # heartbeat; a page that leaves the pipelines or a resolution that ends does not trigger
        # the check.  At the end of a crawl that costs up to two heartbeats of waiting, so the
        # check is asked for (the engine has no public call for it: skipped if it changes).
        slot = getattr(self.crawler.engine, "_slot", None)
        nextcall = getattr(slot, "nextcall", None)
        if nextcall is not None and hasattr(nextcall, "schedule"):
            nextcall.schedule()

    def item_done(self, item: Any = None, *args: Any, **kwargs: Any) -> None:
        # A page leaving the pipelines may be the last one; a pair item never is (the final ones
        # end with a check of their own).
        if isinstance(item, PairItem):
            return
        downloader = getattr(self.crawler.engine, "downloader", None)
        if downloader is not None and not getattr(downloader, "active", True):
            self._wake_engine()

    def response_received(self, *args: Any, **kwargs: Any) -> None:
        self._last_response = time.monotonic()

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        # The close-time work the crawl still waits for once every page is in: the design keeps
        # it a small share of the crawl by doing the work as pages arrive.
        if self._last_response is not None:
            self.crawler.stats.set_value("bitext/time/after_last_response_s",
                                         round(time.monotonic() - self._last_response, 3))

    def spider_idle(self, spider: Any = None) -> None:
        if self._task is not None and not self._task.done():
            raise DontCloseSpider
        if self._failed or not self.runtime.sites or (self._task is not None and self.runtime.resolved):
            return
        self._task = asyncio.ensure_future(self._finish())
        raise DontCloseSpider

    async def _finish(self) -> None:
        start = time.monotonic()
        logger.info("spider idle: resolving the pairs of %d sites", len(self.runtime.sites))
        try:
            # The pairs are sent while the models' save ends (a save of counts, not of pairs).
            await asyncio.to_thread(self.runtime.resolve, wait_saved=False)
            site_ids = [s.site_id for s in self.runtime.sites.values()]
            pairs = await asyncio.to_thread(self.runtime.resolver.final_pairs, site_ids)
        except Exception:
            # The close resolves again; the spider must not wait on idle for ever meanwhile.
            self._failed = True
            logger.exception("resolving the pairs at idle failed")
            self.crawler.stats.inc_value("bitext/errors/resolve")
            self._wake_engine()
            return
        self.crawler.stats.set_value("bitext/time/resolve_s", round(time.monotonic() - start, 3))
        sending = time.monotonic()
        # Up to CONCURRENT_ITEMS pairs go through the pipelines at once, as a callback's items do:
        # one at a time, each pair waited for two turns of the event loop (its signals'
        # handlers run as tasks).  Pipelines that do not wait keep the order of the pairs.
        step = max(1, self.crawler.settings.getint("CONCURRENT_ITEMS", 100))
        for i in range(0, len(pairs), step):
            await asyncio.gather(*(send_pair(self.crawler, pair) for pair in pairs[i:i + step]))
        self.crawler.stats.set_value("bitext/time/final_items_s", round(time.monotonic() - sending, 3))
        self.crawler.stats.set_value("bitext/pairs/final_items", len(pairs))
        logger.info("%d final pairs sent as items", len(pairs))
        try:
            await asyncio.to_thread(self.runtime.models_saved)
        finally:
            self._wake_engine()
