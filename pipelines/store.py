"""Store stage: hand the page and its surviving candidates to the writer thread; at close, flush
and resolve each site's candidates one-to-one into final pairs."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import numpy as np

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.store import CandidateRecord, PageRecord

# The score a candidate is ranked by in the one-to-one resolution, by preference: a combined
# decision score if a later filter wrote one, else the structure similarity, else size closeness.
_RANK_KEYS = ("score", "structure")


def _rank_scores(scores: dict[str, np.ndarray], n: int) -> np.ndarray:
    for key in _RANK_KEYS:
        if key in scores:
            return np.asarray(scores[key], dtype=np.float64)
    if "size_file" in scores:
        return 1.0 - np.asarray(scores["size_file"], dtype=np.float64)
    return np.ones(n)


def page_record(item: PageItem, site_id: int, languages: Any) -> PageRecord:
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
        size_chars=len(item.html) if item.html is not None else 0,
        n_tags=f.n_tags if f else 0,
        n_paragraphs=f.n_paragraphs if f else 0,
        n_words=int(f.tokens[f.tokens > 0].sum()) if f is not None and len(f.tokens) else 0,
        lang=item.lang,
        lang_score=item.lang_score,
        declared_lang=(f.declared_lang if f else "")[:32],
        eligible=item.eligible,
        title=f.title if f else "",
        text=f.text if f else "",
        tokens=f.tokens.astype(np.int32).tobytes() if f is not None else None,
        links=item.links,
        note=item.note[:255],
    )
    candidates: list[CandidateRecord] = []
    for cand in item.candidates:
        index = languages(cand.lang)
        rank = _rank_scores(cand.scores, len(cand))
        for i, row in enumerate(cand.rows):
            scores = {k: (None if np.isnan(v[i]) else round(float(v[i]), 6)) for k, v in cand.scores.items()}
            candidates.append(CandidateRecord(index.urls[int(row)], cand.lang, float(rank[i]), scores))
    return PageRecord(site_id=site_id, values=values, candidates=candidates)


class StorePipeline:
    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.stats = runtime.stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> StorePipeline:
        return cls(BitextRuntime.of(crawler))

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        site = self.runtime.sites[item.site]
        record = page_record(item, site.site_id, site.index.index)
        self.runtime.writer.submit(record)
        self.stats.inc_value("bitext/pages")
        if record.candidates:
            self.stats.inc_value("bitext/candidates/stored", len(record.candidates))
        # The body, decoded text and candidate arrays are in the record now; don't keep them
        # alive in the item Scrapy passes on to signals and exporters.
        item.body = b""
        item.html = None
        item.candidates = []
        return item

    async def close_spider(self, spider: Any = None) -> None:
        await asyncio.to_thread(self.runtime.close)
