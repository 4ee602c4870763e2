"""Store stage: hand the page and its surviving candidates to the writer thread; at close, flush
and resolve each site's candidates one-to-one into final pairs."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import numpy as np
from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.store.records import AlignedRecord, CandidateRecord, PageRecord
from matchers.site.one_to_one import rank_scores
from pipelines.base import pages_only


def page_record(item: PageItem, site_id: int, languages: Any, max_per_lang: int = 0) -> PageRecord:
    f = item.features
    values: dict[str, Any] = dict(
        url=item.url,
        requested_url=item.requested_url or item.url,
        status=item.status,
        depth=item.depth,
        fetched_at=item.fetched_at or time.time(),
        content_type=item.content_type[:255],
        encoding=item.encoding,
        size_bytes=len(item.body),
        size_chars=item.size_chars,
        n_tags=f.n_tags if f else 0,
        n_paragraphs=f.n_paragraphs if f else 0,
        n_words=f.n_words if f is not None else 0,
        lang=item.lang,
        lang_score=item.lang_score,
        declared_lang=(f.declared_lang if f else "")[:32],
        eligible=item.eligible,
        title=f.title if f else "",
        text=f.text if f else "",
        tokens=f.tokens.astype(np.int32).tobytes() if f is not None else None,
        links=item.links,
        paragraphs=[list(p) for p in item.paragraphs] if item.content is not None else [],
        outlinks=[list(x) for x in item.outlinks],
        images=item.images,
        note=item.note[:255],
        canonical=item.canonical,
        topic=({**item.topic.as_json(), "paragraphs": item.paragraph_topics, "links": item.link_priorities}
               if item.topic is not None else None),
        published=item.published,
        etag=item.etag[:255],
        last_modified=item.last_modified[:64],
    )
    candidates: list[CandidateRecord] = []
    for cand in item.candidates:
        urls = languages(cand.lang).urls
        rank_array = rank_scores(cand.scores, len(cand))
        keep = np.argsort(-rank_array, kind="stable")
        if max_per_lang:
            keep = keep[:max_per_lang]
        rank = rank_array[keep].tolist()
        names = list(cand.scores)
        columns = [
            [None if v != v else round(v, 6) for v in np.asarray(cand.scores[k], dtype=np.float64)[keep].tolist()]
            for k in names
        ]
        for i, row in enumerate(cand.rows[keep].tolist()):
            scores = {k: col[i] for k, col in zip(names, columns, strict=True)}
            candidates.append(CandidateRecord(urls[row], cand.lang, rank[i], scores))
    # The page's own sentence first; a page aligned with several others has its sentences
    # unpacked once for all of them.
    own = item.content.uid if item.content is not None else 0  # uids count from 1
    texts: dict[int, list[str]] = {}
    aligned = [AlignedRecord(url, lang, kept.starting_with(own).sentence_pairs(texts)) for url, lang, kept in item.aligned]
    aligned += [AlignedRecord(url2, lang2, kept.sentence_pairs(texts), own_url=url1, own_lang=lang1)
                for url1, lang1, url2, lang2, kept in item.realigned]
    return PageRecord(site_id=site_id, values=values, candidates=candidates, aligned=aligned)


class StorePipeline:
    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.stats = runtime.stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> StorePipeline:
        if not BitextConfig.from_crawler(crawler).enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(BitextRuntime.of(crawler))

    @pages_only
    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        site = self.runtime.site(item.site)
        config = self.runtime.config
        record = page_record(item, site.site_id, site.index.index, config.max_candidates_per_lang)
        writer = self.runtime.writer
        writer.submit(record)
        self.runtime.pages_submitted += 1
        if writer.backlog > config.writer_backlog:
            # Backpressure: while this item waits, Scrapy stops taking new responses.
            self.stats.inc_value("bitext/store/waits")
            await asyncio.to_thread(writer.wait_below, config.writer_backlog // 2)
        self.stats.inc_value("bitext/pages")
        if record.candidates:
            self.stats.inc_value("bitext/candidates/stored", len(record.candidates))
        # The body, decoded text and candidate arrays are in the record now; don't keep them
        # alive in the item Scrapy passes on to signals and exporters.
        item.body = b""
        item.html = None
        item.parsed = None
        item.candidates = []
        item.aligned = []
        item.realigned = []
        item.content = None
        return item

    async def close_spider(self, spider: Any = None) -> None:
        await asyncio.to_thread(self.runtime.close)
