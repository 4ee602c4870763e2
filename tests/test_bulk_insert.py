"""The multi-row inserts on SQLite store what SQLAlchemy's row-by-row inserts store."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import Session

from bitext_spider.store.bulk_insert import BulkInserter, RowsInsert
from bitext_spider.store.dialect import insert_for
from bitext_spider.store.models import Base, CandidateRow, PageRow, SentenceRow, SiteRow

_SENTENCE_KEY = ["page1_id", "page2_id", "position"]
_CANDIDATE_KEY = ["page1_id", "page2_id"]


def _engine(tmp_path: Any, name: str) -> Any:
    tmp_path.mkdir(parents=True, exist_ok=True)
    engine = create_engine(f"sqlite:///{tmp_path / name}")
    Base.metadata.create_all(engine)
    with Session(engine) as s, s.begin():
        s.add(SiteRow(id=1, key="example.org", start_urls=[]))
        for i in range(1, 7):
            s.add(PageRow(id=i, site_id=1, url=f"http://example.org/{i}", lang="en"))
    return engine


def _sentences(n: int, pages: int = 3) -> list[dict[str, Any]]:
    return [dict(site_id=1, page1_id=1 + i % pages, page2_id=4 + i % pages, position=i // pages, lang1="en",
                 lang2="fr", text1=f"sentence {i}", text2=f"phrase {i}" if i % 7 else "", score=i / n)
            for i in range(n)]


def _candidates() -> list[dict[str, Any]]:
    scores: list[Any] = [{"structure": 0.9, "content_share": None}, None, {"x_user": 1.0}]
    return [dict(site_id=1, page1_id=p1, page2_id=p2, lang1="en", lang2="fr", score=0.5 + p1 / 10,
                 scores=scores[(p1 + p2) % 3])
            for p1 in (1, 2, 3) for p2 in (4, 5, 6)]


def _rows(engine: Any, table: Any) -> list[tuple[Any, ...]]:
    """The rows as stored (JSON as its text, a JSON null apart from an SQL NULL)."""
    with engine.connect() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(f"SELECT * FROM {table.name} ORDER BY id")]


def _both(tmp_path: Any, table: Any, key: list[str], batches: list[list[dict[str, Any]]]) -> tuple[Any, Any, Any]:
    bulk_engine, plain_engine = _engine(tmp_path, "bulk.db"), _engine(tmp_path, "plain.db")
    bulk = BulkInserter(bulk_engine.dialect)
    for rows in batches:
        with Session(bulk_engine) as s, s.begin():
            bulk.insert(s, table, key, rows, insert_for(bulk_engine, table).on_conflict_do_nothing(index_elements=key))
        with Session(plain_engine) as s, s.begin():
            s.execute(insert_for(plain_engine, table).on_conflict_do_nothing(index_elements=key), rows)
    return bulk, _rows(bulk_engine, table), _rows(plain_engine, table)


def test_sentences_in_several_statements_equal_row_by_row(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _sentences(250)
    # A repeated position (in the same batch and in a later one) is skipped, as row by row.
    batches = [rows[:120] + [dict(rows[5], text1="again")], rows[100:]]
    form = RowsInsert(SentenceRow.__table__, list(rows[0]), _SENTENCE_KEY, create_engine("sqlite://").dialect)
    assert form.usable and form.per_statement == 1000
    monkeypatch.setattr(RowsInsert, "__init__", _small(RowsInsert.__init__, 32))
    bulk, got, want = _both(tmp_path, SentenceRow.__table__, _SENTENCE_KEY, batches)
    assert len(want) == 250 and got == want
    assert all(f.usable and f.per_statement == 32 for f in bulk._forms.values())


def _small(init: Any, per_statement: int) -> Any:
    def small(self: RowsInsert, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.per_statement = per_statement
        self._full = self._text(per_statement)

    return small


def test_json_none_and_constant_defaults_as_row_by_row(tmp_path: Any) -> None:
    rows = _candidates()
    bulk, got, want = _both(tmp_path, CandidateRow.__table__, _CANDIDATE_KEY, [rows])
    assert got == want and len(got) == 9
    form = next(iter(bulk._forms.values()))
    # ``accepted`` is not given: its constant default is bound.
    assert form.usable and form.constants == {"accepted": True}
    with Session(_stored(tmp_path)) as s:
        scores = dict(s.execute(select(CandidateRow.page2_id, CandidateRow.scores).where(CandidateRow.page1_id == 1)).all())
    assert scores == {4: {"x_user": 1.0}, 5: {"structure": 0.9, "content_share": None}, 6: None}


def _stored(tmp_path: Any) -> Any:
    return create_engine(f"sqlite:///{tmp_path / 'bulk.db'}")


def test_rows_of_other_columns_and_defaults_that_are_not_constants_go_row_by_row(tmp_path: Any) -> None:
    sentences = _sentences(10)
    sentences[3] = {k: sentences[3][k] for k in reversed(list(sentences[3]))}
    # The same keys in another order share the multi-row statement.
    bulk, got, want = _both(tmp_path / "same", SentenceRow.__table__, _SENTENCE_KEY, [sentences])
    assert got == want and len(got) == 10 and len(bulk._forms) == 1
    # ``links`` has a callable default (list): page rows without it are inserted row by row.
    page = RowsInsert(PageRow.__table__, ["site_id", "url", "lang"], ["url"], create_engine("sqlite://").dialect)
    assert not page.usable
    # Rows that do not all give the same columns: row by row, with SQLAlchemy's error.
    mixed = [*_sentences(4), {k: v for k, v in _sentences(5)[4].items() if k != "score"}]
    errors = []
    for name in ("bulk", "plain"):
        engine = _engine(tmp_path, f"mixed-{name}.db")
        bulk = BulkInserter(engine.dialect)
        stmt = insert_for(engine, SentenceRow.__table__).on_conflict_do_nothing(index_elements=_SENTENCE_KEY)
        with pytest.raises(StatementError) as caught, Session(engine) as s, s.begin():
            if name == "bulk":
                bulk.insert(s, SentenceRow.__table__, _SENTENCE_KEY, mixed, stmt)
            else:
                s.execute(stmt, mixed)
        errors.append(str(caught.value.orig if caught.value.orig is not None else caught.value).split("\n")[0])
        assert not bulk._forms and _rows(engine, SentenceRow.__table__) == []
    assert errors[0] == errors[1]
