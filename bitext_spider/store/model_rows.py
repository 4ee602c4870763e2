"""The translation models' rows of the store: the stored model of each language pair and each
site's saved training, with the compare-and-set writes that let several crawls merge into them
(bitext_spider.store.model_registry).  A part of :class:`bitext_spider.store.database.Store`."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from sqlalchemy import delete, select, tuple_
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from bitext_spider.store.dialect import Changed as _Changed
from bitext_spider.store.dialect import chunks as _chunks
from bitext_spider.store.dialect import insert_for as _insert
from bitext_spider.store.models import SiteModelRow, SiteRow, TranslationModelRow
from bitext_spider.store.records import ModelRecord, StoredModel, StoredSiteModel


class ModelRows:
    engine: Engine
    _retrying: Callable[[Callable[[], Any]], Any]

    # -- translation models -----------------------------------------------------------------
    def save_models(self, models: list[ModelRecord]) -> None:
        """Upsert model snapshots (the last one of a language pair wins).

        The crawl merges instead (:meth:`replace_model`, ``ModelRegistry``); this overwrites, for
        tools that mean to replace a model."""
        latest = {(m.lang1, m.lang2): m for m in models}
        stmt = _insert(self.engine, TranslationModelRow.__table__)
        stmt = stmt.on_conflict_do_update(
            index_elements=["lang1", "lang2"],
            set_=dict(
                pairs_seen=stmt.excluded.pairs_seen,
                sentences_seen=stmt.excluded.sentences_seen,
                state=stmt.excluded.state,
            ),
        )
        rows = [
            dict(lang1=m.lang1, lang2=m.lang2, pairs_seen=m.pairs_seen, sentences_seen=m.sentences_seen,
                 state=m.state)
            for m in sorted(latest.values(), key=lambda m: (m.lang1, m.lang2))
        ]

        def run() -> None:
            with Session(self.engine) as s, s.begin():
                s.execute(stmt, rows)

        self._retrying(run)

    def model_row(self, lang1: str, lang2: str) -> StoredModel | None:
        """The stored state of a language pair's model with its version, read together."""
        with Session(self.engine) as s:
            row = s.execute(
                select(TranslationModelRow.state, TranslationModelRow.pairs_seen, TranslationModelRow.sentences_seen)
                .where(TranslationModelRow.lang1 == lang1, TranslationModelRow.lang2 == lang2)
            ).one_or_none()
        return None if row is None else StoredModel(row[0], int(row[1]), int(row[2]))

    def model_version(self, lang1: str, lang2: str) -> tuple[int, int] | None:
        """``(sentences_seen, pairs_seen)`` of the stored model, without reading its state."""
        with Session(self.engine) as s:
            row = s.execute(
                select(TranslationModelRow.sentences_seen, TranslationModelRow.pairs_seen)
                .where(TranslationModelRow.lang1 == lang1, TranslationModelRow.lang2 == lang2)
            ).one_or_none()
        return None if row is None else (int(row[0]), int(row[1]))

    def replace_model(self, record: ModelRecord, expected: tuple[int, int] | None) -> bool:
        """Store ``record`` only if the stored model still has the version ``expected``
        (``(sentences_seen, pairs_seen)``; ``None``: no row yet).  Returns whether it was written.

        A compare-and-set for folding writers (``bitext_spider.store.model_registry``): each write adds
        counts, so the version only grows and a row read at ``expected`` is unchanged as long as
        the version is.  The condition is checked by the database under the row's write lock
        (SQLite: the database lock; PostgreSQL re-checks the WHERE on the latest row version after
        waiting for a concurrent updater), so two processes cannot both write on the same read.
        """
        def run() -> bool:
            with Session(self.engine) as s, s.begin():
                return self._compare_and_set(s, TranslationModelRow.__table__, {}, record, expected)

        return bool(self._retrying(run))

    def _compare_and_set(
        self, s: Session, table: Any, key: dict[str, Any], record: ModelRecord, expected: tuple[int, int] | None
    ) -> bool:
        """Write ``record`` into the row of ``key`` + its languages if its version is ``expected``."""
        key = dict(key, lang1=record.lang1, lang2=record.lang2)
        values = dict(pairs_seen=record.pairs_seen, sentences_seen=record.sentences_seen, state=record.state)
        if expected is None:
            stmt = (
                _insert(self.engine, table)
                .values(**key, **values)
                .on_conflict_do_nothing(index_elements=list(key))
                # Whether a row went in: SQLAlchemy runs a single-row INSERT with RETURNING on
                # PostgreSQL, whose rowcount is then -1, so it is asked for explicitly.
                .returning(table.c.id)
            )
            return s.execute(stmt).first() is not None
        cond = [table.c[k] == v for k, v in key.items()]
        stmt = (
            table.update()
            .where(*cond, table.c.sentences_seen == expected[0], table.c.pairs_seen == expected[1])
            .values(**values)
        )
        return s.execute(stmt).rowcount == 1

    # -- each site's training, until it is folded into the models ------------------------------
    def site_model_row(self, site_id: int, lang1: str, lang2: str) -> StoredModel | None:
        with Session(self.engine) as s:
            row = s.execute(
                select(SiteModelRow.state, SiteModelRow.pairs_seen, SiteModelRow.sentences_seen).where(
                    SiteModelRow.site_id == site_id, SiteModelRow.lang1 == lang1, SiteModelRow.lang2 == lang2
                )
            ).one_or_none()
        return None if row is None else StoredModel(row[0], int(row[1]), int(row[2]))

    def replace_site_model(self, site_id: int, record: ModelRecord, expected: tuple[int, int] | None) -> bool:
        """:meth:`replace_model` for a site's row of ``site_models``."""
        def run() -> bool:
            with Session(self.engine) as s, s.begin():
                return self._compare_and_set(s, SiteModelRow.__table__, {"site_id": site_id}, record, expected)

        return bool(self._retrying(run))

    def site_model_rows(self, keys: Collection[tuple[int, str, str]]) -> dict[tuple[int, str, str], StoredModel]:
        """The rows of ``keys`` (``(site_id, lang1, lang2)``) that exist, in one query."""
        out: dict[tuple[int, str, str], StoredModel] = {}
        t = SiteModelRow
        with Session(self.engine) as s:
            for chunk in _chunks(sorted(set(keys)), 300):
                q = select(t.site_id, t.lang1, t.lang2, t.state, t.pairs_seen, t.sentences_seen).where(
                    tuple_(t.site_id, t.lang1, t.lang2).in_(chunk))
                for r in s.execute(q):
                    out[(r[0], r[1], r[2])] = StoredModel(r[3], int(r[4]), int(r[5]))
        return out

    def replace_site_models(self, writes: list[tuple[int, ModelRecord, tuple[int, int] | None]]) -> bool:
        """:meth:`replace_site_model` for several rows ``(site_id, record, expected)`` in one
        transaction: all are written, or (a row changed since read) none."""
        def run() -> bool:
            try:
                with Session(self.engine) as s, s.begin():
                    for site_id, record, expected in writes:
                        if not self._compare_and_set(s, SiteModelRow.__table__, {"site_id": site_id}, record, expected):
                            raise _Changed
                    return True
            except _Changed:
                return False

        return bool(self._retrying(run))

    def model_rows(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], StoredModel]:
        """:meth:`model_row` of several language pairs, in one query."""
        out: dict[tuple[str, str], StoredModel] = {}
        t = TranslationModelRow
        with Session(self.engine) as s:
            for chunk in _chunks(sorted(set(pairs)), 300):
                q = select(t.lang1, t.lang2, t.state, t.pairs_seen, t.sentences_seen).where(
                    tuple_(t.lang1, t.lang2).in_(chunk))
                for r in s.execute(q):
                    out[(r[0], r[1])] = StoredModel(r[2], int(r[3]), int(r[4]))
        return out

    def site_keys(self, site_ids: Collection[int]) -> dict[int, str]:
        """The keys of sites by id."""
        out: dict[int, str] = {}
        with Session(self.engine) as s:
            for chunk in _chunks(sorted(set(site_ids)), 500):
                out.update((r[0], r[1]) for r in s.execute(select(SiteRow.id, SiteRow.key).where(SiteRow.id.in_(chunk))))
        return out

    def site_model_pairs(self, site_ids: Collection[int] | None = None) -> list[tuple[str, str]]:
        """Language pairs with unfolded site training (of ``site_ids``, or all)."""
        q = select(SiteModelRow.lang1, SiteModelRow.lang2).distinct()
        if site_ids is not None:
            q = q.where(SiteModelRow.site_id.in_(sorted(site_ids)))
        with Session(self.engine) as s:
            return sorted((r[0], r[1]) for r in s.execute(q).all())

    def site_models(
        self, site_ids: Collection[int] | None = None, pair: tuple[str, str] | None = None,
        pairs: Collection[tuple[str, str]] | None = None,
    ) -> list[StoredSiteModel]:
        """Unfolded site training (of ``site_ids``, or all; of ``pair`` or ``pairs``, or all), by
        language pair and site key."""
        q = select(
            SiteModelRow.site_id, SiteRow.key, SiteModelRow.lang1, SiteModelRow.lang2, SiteModelRow.state,
            SiteModelRow.pairs_seen, SiteModelRow.sentences_seen,
        ).join(SiteRow, SiteRow.id == SiteModelRow.site_id)
        if site_ids is not None:
            q = q.where(SiteModelRow.site_id.in_(sorted(site_ids)))
        if pair is not None:
            q = q.where(SiteModelRow.lang1 == pair[0], SiteModelRow.lang2 == pair[1])
        if pairs is not None:
            q = q.where(tuple_(SiteModelRow.lang1, SiteModelRow.lang2).in_(sorted(set(pairs))))
        with Session(self.engine) as s:
            rows = s.execute(q).all()
        out = [StoredSiteModel(r[0], r[1], r[2], r[3], StoredModel(r[4], int(r[5]), int(r[6]))) for r in rows]
        return sorted(out, key=lambda m: (m.lang1, m.lang2, m.site_key))

    def fold_site_models(
        self, record: ModelRecord, expected: tuple[int, int] | None, folded: list[StoredSiteModel]
    ) -> bool:
        """In one transaction: write the model ``record`` (compare-and-set on ``expected``) and
        delete the site rows ``folded`` it includes, each only if unchanged since read.  Returns
        whether it happened; if any condition fails nothing is written."""
        return self._fold_rows([(record, expected, folded)])

    def fold_many_site_models(
        self, folds: list[tuple[ModelRecord, tuple[int, int] | None, list[StoredSiteModel]]]
    ) -> bool:
        """:meth:`fold_site_models` for several language pairs in one transaction: all of them,
        or (any condition failing) none."""
        return self._fold_rows(folds)

    def _fold_rows(self, folds: list[tuple[ModelRecord, tuple[int, int] | None, list[StoredSiteModel]]]) -> bool:
        t = SiteModelRow.__table__

        def run() -> bool:
            try:
                with Session(self.engine) as s, s.begin():
                    for record, expected, folded in folds:
                        if not self._compare_and_set(s, TranslationModelRow.__table__, {}, record, expected):
                            raise _Changed
                        for m in folded:
                            gone = s.execute(delete(t).where(
                                t.c.site_id == m.site_id, t.c.lang1 == m.lang1, t.c.lang2 == m.lang2,
                                t.c.sentences_seen == m.model.sentences_seen, t.c.pairs_seen == m.model.pairs_seen,
                            ))
                            if gone.rowcount != 1:
                                raise _Changed  # rolls the model writes back too
                    return True
            except _Changed:
                return False

        return bool(self._retrying(run))

    def load_model(self, lang1: str, lang2: str) -> bytes | None:
        with Session(self.engine) as s:
            return s.execute(
                select(TranslationModelRow.state).where(
                    TranslationModelRow.lang1 == lang1, TranslationModelRow.lang2 == lang2
                )
            ).scalar_one_or_none()

    # -- site-level decisions ---------------------------------------------------------------
