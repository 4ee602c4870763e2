"""Persistence: pages and candidates written in batches by one writer thread, pairs resolved per site.

The reactor never waits on the database: pipelines hand :class:`PageRecord` objects to
:class:`StoreWriter`, whose thread commits them in batches (by count or time).  Batches commit in
arrival order, so after a kill the stored pages are a prefix of what was processed, and a resumed
crawl re-fetches exactly the pages that are missing.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, aliased

from bitext_spider.db import CandidateRow, PageRow, PairRow, SiteRow, make_engine
from matchers.one_to_one import Scored, resolve_one_to_one

logger = logging.getLogger(__name__)


@dataclass
class CandidateRecord:
    other_url: str
    other_lang: str
    score: float
    scores: dict[str, float]


@dataclass
class PageRecord:
    """One page's row plus the candidates it found among earlier pages."""

    site_id: int
    values: dict[str, Any]
    candidates: list[CandidateRecord] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.values["url"]


@dataclass
class StoredPage:
    """What a resumed crawl needs of a page already in the database."""

    url: str
    lang: str | None
    eligible: bool
    size_bytes: int
    size_chars: int
    n_tags: int
    n_paragraphs: int
    tokens: np.ndarray | None
    links: list[str]


def _insert(engine: Engine, table: Any) -> Any:
    """``INSERT`` that can take ``ON CONFLICT DO NOTHING`` on the engine's dialect."""
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _ordered(a_id: int, a_lang: str, b_id: int, b_lang: str) -> tuple[int, str, int, str]:
    return (a_id, a_lang, b_id, b_lang) if a_id < b_id else (b_id, b_lang, a_id, a_lang)


class Store:
    """Database access for the crawl and the ``bitext`` command."""

    def __init__(self, url: str, create: bool = True) -> None:
        self.url = url
        self.engine = make_engine(url, create=create)
        self._ids: dict[str, int] = {}

    def close(self) -> None:
        self.engine.dispose()

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
        )
        with Session(self.engine) as s:
            for row in s.execute(select(*cols).where(PageRow.site_id == site_id).order_by(PageRow.id)):
                self._ids[row.url] = row.id
                tokens = np.frombuffer(row.tokens, dtype=np.int32).copy() if row.tokens is not None else None
                yield StoredPage(
                    row.url, row.lang, bool(row.eligible), row.size_bytes, row.size_chars,
                    row.n_tags, row.n_paragraphs, tokens, list(row.links or []),
                )

    # -- writes -----------------------------------------------------------------------------
    def write(self, records: list[PageRecord]) -> None:
        """Store pages and their candidates in one transaction (three statements a batch)."""
        if not records:
            return
        page_insert = _insert(self.engine, PageRow.__table__).on_conflict_do_nothing(index_elements=["url"])
        cand_insert = _insert(self.engine, CandidateRow.__table__).on_conflict_do_nothing(
            index_elements=["page1_id", "page2_id"]
        )
        new_ids: dict[str, int] = {}
        with Session(self.engine) as s, s.begin():
            s.execute(page_insert, [dict(site_id=rec.site_id, **rec.values) for rec in records])
            wanted = {rec.url for rec in records}
            wanted.update(
                c.other_url for rec in records for c in rec.candidates if c.other_url not in self._ids
            )
            for chunk in _chunks(sorted(wanted), 500):
                for url, page_id in s.execute(select(PageRow.url, PageRow.id).where(PageRow.url.in_(chunk))):
                    new_ids[url] = page_id
            rows = []
            for rec in records:
                page_id = new_ids[rec.url]
                lang = rec.values.get("lang") or ""
                for c in rec.candidates:
                    other = new_ids.get(c.other_url) or self._ids.get(c.other_url)
                    if other is None:
                        logger.warning("candidate %s -> %s: earlier page not stored; skipped", rec.url, c.other_url)
                        continue
                    p1, l1, p2, l2 = _ordered(page_id, lang, other, c.other_lang)
                    rows.append(
                        dict(site_id=rec.site_id, page1_id=p1, page2_id=p2, lang1=l1, lang2=l2,
                             score=float(c.score), scores=c.scores)
                    )
            if rows:
                s.execute(cand_insert, rows)
        # Only after the commit: a rolled-back id must not be remembered.
        self._ids.update(new_ids)

    # -- site-level decisions ---------------------------------------------------------------
    def resolve_site(self, site_id: int) -> Counter[str]:
        """Replace the site's final pairs by the one-to-one resolution of all its candidates.

        Returns the number of pairs by language pair (``"en-fr"``, languages in sorted order).
        """
        with Session(self.engine) as s, s.begin():
            cands = [
                Scored(r.page1_id, r.lang1, r.page2_id, r.lang2, r.score)
                for r in s.execute(
                    select(
                        CandidateRow.page1_id, CandidateRow.lang1, CandidateRow.page2_id,
                        CandidateRow.lang2, CandidateRow.score,
                    ).where(CandidateRow.site_id == site_id)
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
    def _page_pairs(self, model: Any) -> Iterator[Any]:
        p1, p2 = aliased(PageRow), aliased(PageRow)
        extra = [model.scores] if hasattr(model, "scores") else []
        q = (
            select(model.lang1, p1.url.label("url1"), model.lang2, p2.url.label("url2"), model.score, *extra)
            .join(p1, p1.id == model.page1_id)
            .join(p2, p2.id == model.page2_id)
            .order_by(model.score.desc(), model.id)
        )
        with Session(self.engine) as s:
            yield from s.execute(q)

    def pairs(self) -> Iterator[Any]:
        return self._page_pairs(PairRow)

    def candidates(self) -> Iterator[Any]:
        return self._page_pairs(CandidateRow)

    def pages(self) -> Iterator[PageRow]:
        with Session(self.engine) as s:
            yield from s.execute(select(PageRow).order_by(PageRow.id)).scalars()


_FLUSH = object()
_STOP = object()


class StoreWriter:
    """A daemon thread that commits :class:`PageRecord` batches to a :class:`Store`."""

    def __init__(
        self,
        store: Store,
        batch: int = 200,
        interval: float = 0.5,
        on_written: Callable[[list[PageRecord]], None] | None = None,
    ) -> None:
        self.store = store
        self.batch = max(1, batch)
        self.interval = interval
        self.on_written = on_written
        self.failures = 0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="bitext-store-writer", daemon=True)
        self._thread.start()

    def submit(self, record: PageRecord) -> None:
        self._queue.put(record)

    @property
    def backlog(self) -> int:
        """Records submitted and not yet committed (approximately)."""
        return self._queue.qsize()

    def wait_below(self, n: int, poll: float = 0.02) -> None:
        """Block until at most ``n`` records wait (for backpressure from a worker thread)."""
        while self._queue.qsize() > n and self._thread.is_alive():
            time.sleep(poll)

    def flush(self, timeout: float | None = None) -> bool:
        """Block until everything submitted so far is committed (or has failed)."""
        done = threading.Event()
        self._queue.put((_FLUSH, done))
        return done.wait(timeout)

    def close(self, timeout: float | None = None) -> None:
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def _commit(self, pending: list[PageRecord]) -> None:
        if not pending:
            return
        try:
            self.store.write(pending)
        except Exception:
            # One bad record must not take the batch down with it: retry one by one.
            logger.exception("writing a batch of %d pages failed; retrying one by one", len(pending))
            for rec in pending:
                try:
                    self.store.write([rec])
                except Exception:
                    self.failures += 1
                    logger.exception("page %s could not be stored", rec.url)
        if self.on_written is not None:
            self.on_written(pending)

    def _run(self) -> None:
        pending: list[PageRecord] = []
        while True:
            try:
                msg = self._queue.get(timeout=self.interval)
            except queue.Empty:
                self._commit(pending)
                pending = []
                continue
            if msg is _STOP:
                self._commit(pending)
                return
            if isinstance(msg, tuple) and msg and msg[0] is _FLUSH:
                self._commit(pending)
                pending = []
                msg[1].set()
                continue
            pending.append(msg)
            if len(pending) >= self.batch:
                self._commit(pending)
                pending = []
