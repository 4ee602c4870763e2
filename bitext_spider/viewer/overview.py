"""The overview page's figures: sites, pages per language, candidates and pairs per language
pair, the crawl's timeline and the runs that made the database (``crawl_runs``)."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Integer, case, cast, func, select
from sqlalchemy.orm import Session, aliased

from bitext_spider.store.models import CandidateRow, CrawlRunRow, PageRow, PairRow, SiteRow


@dataclass
class SiteSummary:
    id: int
    key: str
    start_urls: list[str]
    pages: int
    pairs: int


@dataclass
class LangPairSummary:
    langs: str  # "en-fr", codes sorted
    candidates: int
    accepted: int
    pairs: int


@dataclass
class Timeline:
    """Cumulative pages and pairs at each of ``times`` (Unix seconds); a pair counts from the
    time its later page was fetched."""

    times: list[float]
    pages: list[int]
    pairs: list[int]


@dataclass
class CrawlRun:
    id: int
    spider: str
    started_at: float
    finished_at: float | None
    settings: dict[str, Any]
    stats: dict[str, Any] | None
    bitext_stats: list[tuple[str, Any]] = field(default_factory=list)


@dataclass
class Overview:
    sites: list[SiteSummary]
    languages: list[tuple[str, int, int]]  # lang, pages, eligible pages
    lang_pairs: list[LangPairSummary]
    timeline: Timeline
    runs: list[CrawlRun]
    totals: dict[str, int]


def _lang_key(a: str, b: str) -> str:
    return "-".join(sorted((a or "und", b or "und")))


def sites(s: Session) -> list[SiteSummary]:
    pages = dict(s.execute(select(PageRow.site_id, func.count()).group_by(PageRow.site_id)).all())
    pairs = dict(s.execute(select(PairRow.site_id, func.count()).group_by(PairRow.site_id)).all())
    return [SiteSummary(i, k, list(u or []), pages.get(i, 0), pairs.get(i, 0))
            for i, k, u in s.execute(select(SiteRow.id, SiteRow.key, SiteRow.start_urls).order_by(SiteRow.id))]


def _bucket_counts(s: Session, times: Any, source: Any, start: float, step: float, points: int) -> list[int]:
    """How many of ``times`` (a column expression over ``source``) fall in each of ``points``
    buckets of ``step`` seconds from ``start`` (counted by the database: no row is fetched)."""
    offset = (times - start) / step
    # Truncation toward zero: CAST does it on SQLite; PostgreSQL's CAST rounds, FLOOR does not.
    bucket = func.floor(offset) if s.get_bind().dialect.name == "postgresql" else cast(offset, Integer)
    counts = [0] * points
    for b, n in s.execute(select(bucket, func.count()).select_from(source).where(times > 0).group_by(bucket)):
        counts[min(max(int(b), 0), points - 1)] += n
    return counts


def timeline(s: Session, points: int = 60) -> Timeline:
    start, end = s.execute(select(func.min(PageRow.fetched_at), func.max(PageRow.fetched_at))
                           .where(PageRow.fetched_at > 0)).one()
    if start is None:
        return Timeline([], [], [])
    # A pair's later page is a page: the pairs' times lie between the pages' first and last.
    step = (end - start) / points or 1.0
    p1, p2 = aliased(PageRow), aliased(PageRow)
    later = case((p1.fetched_at > p2.fetched_at, p1.fetched_at), else_=p2.fetched_at)
    pairs_source = PairRow.__table__.join(p1, p1.id == PairRow.page1_id).join(p2, p2.id == PairRow.page2_id)
    page_counts = _bucket_counts(s, PageRow.fetched_at, PageRow.__table__, start, step, points)
    pair_counts = _bucket_counts(s, later, pairs_source, start, step, points)
    # Each point is a bucket's end, with everything up to it; the first is the crawl's start.
    return Timeline([start] + [start + (i + 1) * step for i in range(points)],
                    [0, *itertools.accumulate(page_counts)], [0, *itertools.accumulate(pair_counts)])


def runs(s: Session) -> list[CrawlRun]:
    out = []
    for r in s.execute(select(CrawlRunRow).order_by(CrawlRunRow.id.desc())).scalars():
        stats = r.stats or {}
        out.append(CrawlRun(r.id, r.spider, r.started_at, r.finished_at, dict(r.settings or {}), r.stats,
                            sorted((k, v) for k, v in stats.items() if k.startswith("bitext/"))))
    return out


def overview(s: Session) -> Overview:
    langs = s.execute(select(PageRow.lang, func.count(), func.sum(case((PageRow.eligible, 1), else_=0)))
                      .group_by(PageRow.lang)).all()
    languages = sorted(((lang or "und", n, int(e or 0)) for lang, n, e in langs), key=lambda x: (-x[1], x[0]))
    by_pair: dict[str, Counter[str]] = defaultdict(Counter)
    for a, b, accepted, n in s.execute(select(CandidateRow.lang1, CandidateRow.lang2, CandidateRow.accepted,
                                              func.count()).group_by(CandidateRow.lang1, CandidateRow.lang2,
                                                                     CandidateRow.accepted)):
        by_pair[_lang_key(a, b)]["candidates"] += n
        if accepted is None or accepted:
            by_pair[_lang_key(a, b)]["accepted"] += n
    for a, b, n in s.execute(select(PairRow.lang1, PairRow.lang2, func.count())
                             .group_by(PairRow.lang1, PairRow.lang2)):
        by_pair[_lang_key(a, b)]["pairs"] += n
    lang_pairs = sorted((LangPairSummary(k, c["candidates"], c["accepted"], c["pairs"]) for k, c in by_pair.items()),
                        key=lambda x: (-x.pairs, -x.candidates, x.langs))
    site_list = sites(s)
    totals = {
        "sites": len(site_list),
        "pages": sum(n for _l, n, _e in languages),
        "candidates": sum(x.candidates for x in lang_pairs),
        "pairs": sum(x.pairs for x in lang_pairs),
    }
    return Overview(site_list, languages, lang_pairs, timeline(s), runs(s), totals)
