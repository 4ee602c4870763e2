"""The store: sites, pages, candidates, pairs, sentences and translation models in the database,
and the one-to-one resolution of a site's candidates into its final pairs.  Pages and candidates
arrive through the writer thread (bitext_spider.store.writer)."""

from __future__ import annotations

import itertools
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

import numpy as np
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, aliased

from bitext_spider.store.bulk_insert import BulkInserter
from bitext_spider.store.deciding import deciding_evidence
from bitext_spider.store.dialect import chunks as _chunks
from bitext_spider.store.dialect import insert_for as _insert
from bitext_spider.store.model_rows import ModelRows
from bitext_spider.store.models import (
    CandidateRow,
    PageRow,
    PairRow,
    SentenceRow,
    SiteRow,
    make_engine,
)
from bitext_spider.store.records import (
    CandidateRecord,
    PageRecord,
    SentenceRecord,
    SiteCandidate,
    StoredPage,
)
from matchers.site.one_to_one import Scored, resolve_one_to_one

logger = logging.getLogger(__name__)


# PostgreSQL errors after which the whole transaction is simply run again: deadlock (two writers
# inserting overlapping keys in different orders) and serialization failure.
_RETRY_SQLSTATES = {"40P01", "40001"}
_RETRIES = 8
# Key space of the per-site PostgreSQL advisory locks (resolve_site, the sentence writes at close).
_SITE_LOCK = 0x62697466
# The unique keys the inserts skip conflicting rows on.
_CANDIDATE_KEY = ["page1_id", "page2_id"]
_SENTENCE_KEY = ["page1_id", "page2_id", "position"]


def _retryable(exc: DBAPIError) -> bool:
    return getattr(exc.orig, "sqlstate", None) in _RETRY_SQLSTATES


def _no_nul(value: Any) -> Any:
    """PostgreSQL text cannot hold NUL characters (SQLite can); they are dropped there."""
    return value.replace("\x00", "") if isinstance(value, str) and "\x00" in value else value



def _ordered(a_id: int, a_lang: str, b_id: int, b_lang: str) -> tuple[int, str, int, str]:
    return (a_id, a_lang, b_id, b_lang) if a_id < b_id else (b_id, b_lang, a_id, a_lang)


_TIEBREAK = ("structure", "content_share")


def _tiebreak_columns() -> list[Any]:
    """What orders candidates of equal score in the one-to-one resolution: the weighted
    tag-sequence similarity, then the content share.  Read from the scores in SQL: after the
    decision a candidate's scores carry its whole explanation, and decoding that for two numbers
    cost most of the resolution's read."""
    return [CandidateRow.scores[name].as_float() for name in _TIEBREAK]


def _tiebreak(values: Iterable[Any]) -> tuple[float, ...]:
    """The tiebreak of :func:`_tiebreak_columns`' values, absent evidence last."""
    return tuple(float(v) if isinstance(v, int | float) and v == v else -1.0 for v in values)


_REMEMBERED_IDS = 20_000


class Store(ModelRows):
    """Database access for the crawl and the ``bitext`` command."""

    def __init__(self, url: str, create: bool = True) -> None:
        self.url = url
        self.engine = make_engine(url, create=create)
        # Ids of recently stored pages, for their candidates' rows without a query.  Bounded: a
        # crawl of 100,000 pages would otherwise keep every URL a second time; an id not here is
        # read with the batch that needs it.
        self._ids: dict[str, int] = {}
        # Candidates of a stored page whose other page is not stored yet: pages go through the
        # pipelines concurrently, so a page may be compared with one that reaches the store later.
        # Written with the batch that stores the other page.
        self._waiting: list[tuple[int, int, str, CandidateRecord]] = []

        self._pg = self.engine.dialect.name == "postgresql"
        self._bulk = BulkInserter(self.engine.dialect)

    def close(self) -> None:
        if self._waiting:
            logger.warning("%d candidates not stored: their other page never was (first: %s)",
                           len(self._waiting), self._waiting[0][3].other_url)
        self.engine.dispose()

    def _retrying(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` (one whole transaction); on PostgreSQL, again after a deadlock or
        serialization failure (the database rolled it back, so nothing was half-written)."""
        for attempt in range(_RETRIES):
            try:
                return fn()
            except DBAPIError as e:
                if not (self._pg and _retryable(e)) or attempt == _RETRIES - 1:
                    raise
                logger.info("transaction retried after %s", type(e.orig).__name__)
                time.sleep(random.uniform(0.01, 0.05) * (attempt + 1))
        return None  # pragma: no cover

    def _lock_site(self, s: Session, site_id: int) -> None:
        """Serialize per-site delete-and-insert transactions of concurrent processes (PostgreSQL)."""
        if self._pg:
            s.execute(text("SELECT pg_advisory_xact_lock(:k, :site)"), {"k": _SITE_LOCK, "site": site_id})

    # -- sites and resume -------------------------------------------------------------------
    def ensure_site(self, key: str, start_urls: list[str]) -> int:
        with Session(self.engine) as s, s.begin():
            s.execute(
                _insert(self.engine, SiteRow.__table__)
                .values(key=key, start_urls=start_urls)
                .on_conflict_do_nothing(index_elements=["key"])
            )
            return s.execute(select(SiteRow.id).where(SiteRow.key == key)).scalar_one()

    def stored_pages(self, site_id: int) -> Iterator[StoredPage]:
        """Pages of a site already stored, in id (= processing) order."""
        cols = (
            PageRow.id, PageRow.url, PageRow.lang, PageRow.eligible, PageRow.size_bytes,
            PageRow.size_chars, PageRow.n_tags, PageRow.n_paragraphs, PageRow.tokens, PageRow.links,
            PageRow.paragraphs, PageRow.outlinks, PageRow.images, PageRow.canonical, PageRow.published,
            PageRow.etag, PageRow.last_modified, PageRow.topic,
        )
        with Session(self.engine) as s:
            for row in s.execute(select(*cols).where(PageRow.site_id == site_id).order_by(PageRow.id)):
                self._remember({row.url: row.id})
                tokens = np.frombuffer(row.tokens, dtype=np.int32).copy() if row.tokens is not None else None
                yield StoredPage(
                    row.url, row.lang, bool(row.eligible), row.size_bytes, row.size_chars,
                    row.n_tags, row.n_paragraphs, tokens, list(row.links or []),
                    [tuple(p) for p in row.paragraphs or []],
                    [tuple(x) for x in row.outlinks or []],
                    list(row.images or []),
                    row.canonical,
                    row.published,
                    row.etag or "",
                    row.last_modified or "",
                    row.topic,
                )

    # -- writes -----------------------------------------------------------------------------
    def write(self, records: list[PageRecord]) -> None:
        """Store pages and their candidates (three statements a batch) in one transaction."""
        if not records:
            return
        self._retrying(lambda: self._write_pages(records))

    def _write_pages(self, records: list[PageRecord]) -> None:
        page_insert = _insert(self.engine, PageRow.__table__).on_conflict_do_nothing(index_elements=["url"])
        cand_insert = _insert(self.engine, CandidateRow.__table__).on_conflict_do_nothing(
            index_elements=_CANDIDATE_KEY
        )
        new_ids: dict[str, int] = {}
        with Session(self.engine) as s, s.begin():
            page_rows = [dict(site_id=rec.site_id, **rec.values) for rec in records]
            if self._pg:
                page_rows = [{k: _no_nul(v) for k, v in row.items()} for row in page_rows]
            self._bulk.insert(s, PageRow.__table__, ["url"], page_rows, page_insert)
            wanted = {rec.url for rec in records}
            wanted.update(
                c.other_url for rec in records for c in rec.candidates if c.other_url not in self._ids
            )
            wanted.update(u for rec in records for a in rec.aligned for u in (a.other_url, a.own_url)
                          if u and u not in self._ids)
            wanted.update(c.other_url for *_, c in self._waiting)
            for chunk in _chunks(sorted(wanted), 500):
                for url, page_id in s.execute(select(PageRow.url, PageRow.id).where(PageRow.url.in_(chunk))):
                    new_ids[url] = page_id
            rows = []
            waiting: list[tuple[int, int, str, CandidateRecord]] = []
            pending = [*self._waiting, *((rec.site_id, new_ids[rec.url], rec.values.get("lang") or "", c)
                                         for rec in records for c in rec.candidates)]
            for site_id, page_id, lang, c in pending:
                other = new_ids.get(c.other_url) or self._ids.get(c.other_url)
                if other is None:
                    waiting.append((site_id, page_id, lang, c))
                    continue
                p1, l1, p2, l2 = _ordered(page_id, lang, other, c.other_lang)
                rows.append(
                    dict(site_id=site_id, page1_id=p1, page2_id=p2, lang1=l1, lang2=l2,
                         score=float(c.score), scores=c.scores)
                )
            self._bulk.insert(s, CandidateRow.__table__, _CANDIDATE_KEY, rows, cand_insert)
            self._insert_sentences(s, self._aligned_rows(records, new_ids))
        # Only after the commit: a rolled-back id must not be remembered.
        self._remember(new_ids)
        self._waiting = waiting

    def _remember(self, ids: dict[str, int]) -> None:
        self._ids.update(ids)
        if len(self._ids) > _REMEMBERED_IDS:
            # The oldest half goes (dicts keep insertion order), so this runs once in many batches.
            for url in list(itertools.islice(self._ids, len(self._ids) - _REMEMBERED_IDS // 2)):
                del self._ids[url]

    def update_validators(self, validators: dict[str, tuple[str, str]]) -> None:
        """New ``(ETag, Last-Modified)`` of stored pages fetched again (bitext_spider.crawl.recrawl)."""
        def run() -> None:
            with Session(self.engine) as s, s.begin():
                for url, (etag, last_modified) in validators.items():
                    s.execute(update(PageRow).where(PageRow.url == url)
                              .values(etag=etag[:255], last_modified=last_modified[:64]))
        self._retrying(run)

    @property
    def waiting_candidates(self) -> int:
        """Candidates held until their other page is stored (none once every page is)."""
        return len(self._waiting)

    def _aligned_rows(self, records: list[PageRecord], new_ids: dict[str, int]) -> list[dict[str, Any]]:
        rows = []
        for rec in records:
            for a in rec.aligned:
                if a.own_url:
                    page_id, lang = new_ids.get(a.own_url) or self._ids.get(a.own_url), a.own_lang
                else:
                    page_id, lang = new_ids[rec.url], rec.values.get("lang") or ""
                other = new_ids.get(a.other_url) or self._ids.get(a.other_url)
                if page_id is None or other is None:
                    continue  # not stored (yet): the close aligns the pair if it is final
                p1, l1, p2, l2 = _ordered(page_id, lang, other, a.other_lang)
                flip = p1 != page_id
                for pos, (own, theirs, prob) in enumerate(a.pairs):
                    t1, t2 = (theirs, own) if flip else (own, theirs)
                    rows.append(dict(site_id=rec.site_id, page1_id=p1, page2_id=p2, position=pos, lang1=l1,
                                     lang2=l2, text1=t1, text2=t2, score=round(prob, 6)))
        if self._pg:
            rows = [{k: _no_nul(v) for k, v in row.items()} for row in rows]
        return rows

    def _sentence_insert(self) -> Any:
        return _insert(self.engine, SentenceRow.__table__).on_conflict_do_nothing(index_elements=_SENTENCE_KEY)

    def site_candidates(self, site_id: int) -> list[SiteCandidate]:
        p1, p2 = aliased(PageRow), aliased(PageRow)
        q = (
            select(
                CandidateRow.id, CandidateRow.page1_id, p1.url, CandidateRow.lang1, CandidateRow.page2_id,
                p2.url, CandidateRow.lang2, CandidateRow.score, CandidateRow.scores,
            )
            .join(p1, p1.id == CandidateRow.page1_id)
            .join(p2, p2.id == CandidateRow.page2_id)
            .where(CandidateRow.site_id == site_id)
            .order_by(CandidateRow.id)
        )
        with Session(self.engine) as s:
            return [SiteCandidate(*row[:8], dict(row[8] or {})) for row in s.execute(q)]

    def _candidate_ids(self, site_id: int, urls: Iterable[str]) -> dict[frozenset[str], int]:
        """Id of each of the site's candidates with a page among ``urls``, by its two URLs (no
        scores: nothing to decode)."""
        p1, p2 = aliased(PageRow), aliased(PageRow)
        out: dict[frozenset[str], int] = {}
        with Session(self.engine) as s:
            for chunk in _chunks(sorted(set(urls)), 500):
                # Each candidate's first page is one of the two, so the first page's URL finds it.
                q = (
                    select(CandidateRow.id, p1.url, p2.url)
                    .join(p1, p1.id == CandidateRow.page1_id)
                    .join(p2, p2.id == CandidateRow.page2_id)
                    .where(CandidateRow.site_id == site_id, p1.url.in_(chunk))
                )
                out.update({frozenset((u1, u2)): i for i, u1, u2 in s.execute(q)})
        return out

    def add_candidates(self, site_id: int, rows: list[tuple[str, str, str, str, float, dict[str, Any]]]) -> int:
        """Store candidates found at close, given as (url_a, lang_a, url_b, lang_b, score, scores)."""
        if not rows:
            return 0
        return self._retrying(lambda: self._add_candidates(site_id, rows))

    def _add_candidates(self, site_id: int, rows: list[tuple[str, str, str, str, float, dict[str, Any]]]) -> int:
        urls = sorted({r[0] for r in rows} | {r[2] for r in rows})
        ids: dict[str, int] = {}
        stmt = _insert(self.engine, CandidateRow.__table__).on_conflict_do_nothing(
            index_elements=["page1_id", "page2_id"]
        )
        with Session(self.engine) as s, s.begin():
            for chunk in _chunks(urls, 500):
                ids.update({u: i for u, i in s.execute(select(PageRow.url, PageRow.id).where(PageRow.url.in_(chunk)))})
            values = []
            for url_a, lang_a, url_b, lang_b, score, scores in rows:
                if url_a not in ids or url_b not in ids:
                    continue
                p1, l1, p2, l2 = _ordered(ids[url_a], lang_a, ids[url_b], lang_b)
                values.append(dict(site_id=site_id, page1_id=p1, page2_id=p2, lang1=l1, lang2=l2,
                                   score=float(score), scores=scores))
            if values:
                s.execute(stmt, values)
        return len(values)

    def save_decisions(
        self, site_id: int, rows: list[tuple[int, str, str, str, str, float, dict[str, Any], bool]]
    ) -> None:
        """Store the decision of each candidate: ``(id, url_a, lang_a, url_b, lang_b, score, scores,
        accepted)``; id < 0 for a pair not stored yet (inserted, or updated if it is by now)."""
        new = [r for r in rows if r[0] < 0]
        if new:
            self.add_candidates(site_id, [(a, la, b, lb, score, scores) for _i, a, la, b, lb, score, scores, _ok in new])
            ids = self._candidate_ids(site_id, (u for r in new for u in (r[1], r[3])))
            rows = [r for r in rows if r[0] >= 0] + [
                (ids[frozenset((r[1], r[3]))], *r[1:]) for r in new if frozenset((r[1], r[3])) in ids
            ]
        self._update_candidate_rows(
            [dict(id=r[0], score=float(r[5]), scores=r[6], accepted=bool(r[7]), deciding=deciding_evidence(r[6]))
             for r in rows]
        )

    def update_candidates(self, rows: list[tuple[int, float, dict[str, Any]]]) -> None:
        """New ``(id, score, scores)`` for stored candidates."""
        self._update_candidate_rows([dict(id=r[0], score=float(r[1]), scores=r[2]) for r in rows])

    def _update_candidate_rows(self, values: list[dict[str, Any]]) -> None:
        """Bulk UPDATE of candidates by primary key, 500 a statement, in one transaction."""
        if not values:
            return
        values = sorted(values, key=lambda v: v["id"])  # one lock order for concurrent updaters

        def run() -> None:
            with Session(self.engine) as s, s.begin():
                for i in range(0, len(values), 500):
                    s.execute(update(CandidateRow), values[i : i + 500])

        self._retrying(run)

    def delete_candidates(self, ids: list[int]) -> None:
        with Session(self.engine) as s, s.begin():
            for chunk in _chunks(sorted(ids), 500):  # type: ignore[arg-type]
                s.execute(delete(CandidateRow).where(CandidateRow.id.in_(chunk)))

    def site_pairs(self, site_id: int) -> list[tuple[int, str, str, int, str, str]]:
        """Final pairs of a site as (page1_id, url1, lang1, page2_id, url2, lang2)."""
        p1, p2 = aliased(PageRow), aliased(PageRow)
        q = (
            select(PairRow.page1_id, p1.url, PairRow.lang1, PairRow.page2_id, p2.url, PairRow.lang2)
            .join(p1, p1.id == PairRow.page1_id)
            .join(p2, p2.id == PairRow.page2_id)
            .where(PairRow.site_id == site_id)
            .order_by(PairRow.id)
        )
        with Session(self.engine) as s:
            return [tuple(r) for r in s.execute(q)]  # type: ignore[misc]

    def replace_sentences(self, site_id: int, rows: list[SentenceRecord]) -> None:
        """Replace the site's aligned sentences by ``rows``."""
        values = self._sentence_values(site_id, rows)

        def run() -> None:
            with Session(self.engine) as s, s.begin():
                self._lock_site(s, site_id)
                s.execute(delete(SentenceRow).where(SentenceRow.site_id == site_id))
                self._insert_sentences(s, values)

        self._retrying(run)

    def keep_final_sentences(self, site_id: int) -> set[tuple[int, int]]:
        """Delete the site's sentences of page pairs that are not final pairs (those stored as
        pages arrived); returns the final pairs ``(page1_id, page2_id)`` that have sentences."""
        final = (
            select(PairRow.id)
            .where(PairRow.site_id == site_id, PairRow.page1_id == SentenceRow.page1_id,
                   PairRow.page2_id == SentenceRow.page2_id)
            .exists()
        )

        def run() -> set[tuple[int, int]]:
            with Session(self.engine) as s, s.begin():
                self._lock_site(s, site_id)
                s.execute(delete(SentenceRow).where(SentenceRow.site_id == site_id, ~final))
                q = select(SentenceRow.page1_id, SentenceRow.page2_id).where(SentenceRow.site_id == site_id).distinct()
                return {(a, b) for a, b in s.execute(q)}

        return self._retrying(run)

    def add_sentences(self, site_id: int, rows: list[SentenceRecord]) -> None:
        """Store aligned sentences (a page pair's positions already stored are kept)."""
        values = self._sentence_values(site_id, rows)

        def run() -> None:
            with Session(self.engine) as s, s.begin():
                self._insert_sentences(s, values)

        if values:
            self._retrying(run)

    def _sentence_values(self, site_id: int, rows: list[SentenceRecord]) -> list[dict[str, Any]]:
        values = [dict(site_id=site_id, **r.__dict__) for r in rows]
        if self._pg:
            values = [{k: _no_nul(v) for k, v in row.items()} for row in values]
        return values

    def _insert_sentences(self, s: Session, values: list[dict[str, Any]]) -> None:
        for i in range(0, len(values), 5000):
            self._bulk.insert(s, SentenceRow.__table__, _SENTENCE_KEY, values[i : i + 5000], self._sentence_insert())

    def count_sentences(self, site_id: int) -> int:
        with Session(self.engine) as s:
            return s.execute(select(func.count()).select_from(SentenceRow).where(SentenceRow.site_id == site_id)).scalar_one()

    def resolve_site(self, site_id: int) -> Counter[str]:
        """Replace the site's final pairs by the one-to-one resolution of all its candidates.

        Returns the number of pairs by language pair (``"en-fr"``, languages in sorted order).
        """
        return self._retrying(lambda: self._resolve_site(site_id))

    def _resolve_site(self, site_id: int) -> Counter[str]:
        with Session(self.engine) as s, s.begin():
            self._lock_site(s, site_id)
            cands = [
                Scored(r[0], r[1], r[2], r[3], r[4], _tiebreak(r[5:]))
                for r in s.execute(
                    select(
                        CandidateRow.page1_id, CandidateRow.lang1, CandidateRow.page2_id,
                        CandidateRow.lang2, CandidateRow.score, *_tiebreak_columns(),
                    ).where(CandidateRow.site_id == site_id, CandidateRow.accepted.is_not(False))
                )
            ]
            chosen = resolve_one_to_one(cands)
            s.execute(delete(PairRow).where(PairRow.site_id == site_id))
            if chosen:
                s.execute(
                    _insert(self.engine, PairRow.__table__),
                    [
                        dict(site_id=site_id, page1_id=c.page1, page2_id=c.page2, lang1=c.lang1,
                             lang2=c.lang2, score=c.score)
                        for c in chosen
                    ],
                )
        return Counter("-".join(sorted((c.lang1, c.lang2))) for c in chosen)

    # -- reads for export -------------------------------------------------------------------
    def _page_pairs(self, model: Any, site_ids: Collection[int] | None = None) -> Iterator[Any]:
        p1, p2 = aliased(PageRow), aliased(PageRow)
        extra = [model.scores] if hasattr(model, "scores") else []
        q = (
            select(model.lang1, p1.url.label("url1"), model.lang2, p2.url.label("url2"), model.score, *extra)
            .join(p1, p1.id == model.page1_id)
            .join(p2, p2.id == model.page2_id)
            .order_by(model.score.desc(), model.id)
        )
        if site_ids is not None:
            q = q.where(model.site_id.in_(sorted(site_ids)))
        with Session(self.engine) as s:
            yield from s.execute(q)

    def pairs(self, site_ids: Collection[int] | None = None) -> Iterator[Any]:
        """Final pairs (of ``site_ids``, or all), best first."""
        return self._page_pairs(PairRow, site_ids)

    def sites(self) -> list[tuple[int, str, list[str]]]:
        """Every stored site as ``(id, key, start_urls)``, by id."""
        with Session(self.engine) as s:
            return [(r.id, r.key, list(r.start_urls or [])) for r in s.execute(
                select(SiteRow.id, SiteRow.key, SiteRow.start_urls).order_by(SiteRow.id))]

    def candidates(self) -> Iterator[Any]:
        return self._page_pairs(CandidateRow)

    def pages(self) -> Iterator[PageRow]:
        with Session(self.engine) as s:
            yield from s.execute(select(PageRow).order_by(PageRow.id)).scalars()
