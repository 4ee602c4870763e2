import json

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bitext_spider.commands.cli import main as bitext_main
from bitext_spider.store.database import Store
from bitext_spider.store.models import CandidateRow, PageRow, PairRow
from bitext_spider.store.records import CandidateRecord, PageRecord
from bitext_spider.store.writer import StoreWriter


def _page(url, lang, cands=()):
    values = dict(url=url, lang=lang, eligible=True, size_bytes=100, size_chars=100, n_tags=5,
                  n_paragraphs=2, tokens=np.array([-1, 3, -2], np.int32).tobytes(), links=[url + "/next"],
                  title="t", text="x")
    return PageRecord(site_id=1, values=values,
                      candidates=[CandidateRecord(u, lng, s, {"structure": s, "size_file": 0.1}) for u, lng, s in cands])


def _fill(store):
    site = store.ensure_site("a.example", ["http://a.example/"])
    assert site == 1 and store.ensure_site("a.example", []) == 1
    store.write([_page("http://a/en1", "en"), _page("http://a/en2", "en")])
    store.write([_page("http://a/fr1", "fr", [("http://a/en1", "en", 0.9), ("http://a/en2", "en", 0.6)])])
    store.write([_page("http://a/fr2", "fr", [("http://a/en1", "en", 0.8), ("http://a/en2", "en", 0.7)])])


def test_resolution_breaks_equal_scores_by_structure_then_content_share(tmp_path):
    # The tiebreak is read from the stored scores in SQL; NaN evidence is stored as null and
    # orders last, like absent evidence.
    store = Store(f"sqlite:///{tmp_path / 'b.db'}")
    store.ensure_site("a.example", ["http://a.example/"])
    store.write([_page(f"http://a/en{i}", "en") for i in range(1, 5)])

    def fr(url, cands):
        page = _page(url, "fr")
        page.candidates = [CandidateRecord(u, "en", 0.5, scores) for u, scores in cands]
        return page

    store.write([fr("http://a/fr1", [("http://a/en1", {"structure": 0.7, "content_share": 0.9}),
                                     ("http://a/en2", {"structure": 0.9, "content_share": 0.1})])])
    store.write([fr("http://a/fr3", [("http://a/en3", {"structure": float("nan"), "content_share": 0.5}),
                                     ("http://a/en4", {"content_share": 0.6})])])
    assert store.resolve_site(1) == {"en-fr": 2}
    assert {(r.url1, r.url2) for r in store.pairs()} == {("http://a/en2", "http://a/fr1"), ("http://a/en4", "http://a/fr3")}
    with Session(store.engine) as s:
        nulls = s.execute(select(func.count()).select_from(CandidateRow).where(
            func.json_type(CandidateRow.scores, "$.structure") == "null")).scalar_one()
    assert nulls == 1


def test_write_is_idempotent_and_resolution_is_one_to_one(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'b.db'}")
    _fill(store)
    _fill(Store(store.url))  # a repeated crawl: same rows again, from a fresh process
    with Session(store.engine) as s:
        assert s.scalar(select(func.count()).select_from(PageRow)) == 4
        assert s.scalar(select(func.count()).select_from(CandidateRow)) == 4
    assert store.resolve_site(1) == {"en-fr": 2}
    assert store.resolve_site(1) == {"en-fr": 2}  # replaces, does not add
    pairs = {(r.url1, r.url2) for r in store.pairs()}
    assert pairs == {("http://a/en1", "http://a/fr1"), ("http://a/en2", "http://a/fr2")}
    with Session(store.engine) as s:
        assert s.scalar(select(func.count()).select_from(PairRow)) == 2
    stored = list(store.stored_pages(1))
    assert [p.url for p in stored] == ["http://a/en1", "http://a/en2", "http://a/fr1", "http://a/fr2"]
    assert stored[0].tokens.tolist() == [-1, 3, -2] and stored[0].links == ["http://a/en1/next"]


def test_candidates_of_pages_whose_ids_were_forgotten_are_stored(tmp_path, monkeypatch):
    monkeypatch.setattr("bitext_spider.store.database._REMEMBERED_IDS", 4)
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    store.ensure_site("a.example", ["http://a.example/"])
    store.write([_page(f"http://a/en{i}", "en") for i in range(10)])
    assert len(store._ids) <= 4  # the earliest pages' ids are no longer held
    store.write([_page(f"http://a/fr{i}", "fr", [(f"http://a/en{i}", "en", 0.9)]) for i in range(10)])
    with Session(store.engine) as s:
        rows = s.execute(select(PageRow.url, CandidateRow.page2_id).join(PageRow, PageRow.id == CandidateRow.page1_id))
        ids = dict(s.execute(select(PageRow.url, PageRow.id)).all())
        assert {(url, other) for url, other in rows} == {(f"http://a/en{i}", ids[f"http://a/fr{i}"]) for i in range(10)}


def test_writer_thread_flushes_and_survives_a_bad_record(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    store.ensure_site("a.example", [])
    writer = StoreWriter(store, batch=2, interval=0.05)
    writer.submit(_page("http://a/1", "en"))
    bad = _page("http://a/2", "en")
    bad.values["links"] = [object()]  # not JSON-serializable: the database layer rejects it
    writer.submit(bad)
    writer.submit(_page("http://a/3", "fr", [("http://a/1", "en", 0.5)]))
    assert writer.flush(timeout=10)
    writer.close(timeout=10)
    assert writer.failures == 1
    assert [p.url for p in store.stored_pages(1)] == ["http://a/1", "http://a/3"]


def test_export_commands(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'e.db'}"
    store = Store(db)
    _fill(store)
    store.resolve_site(1)
    assert bitext_main(["export", "pairs", "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "lang1\turl1\tlang2\turl2\tscore"
    assert out[1].split("\t") == ["en", "http://a/en1", "fr", "http://a/fr1", "0.9"]
    assert len(out) == 3
    assert bitext_main(["export", "candidates", "--db", db, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 4 and rows[0]["structure"] == 0.9 and rows[0]["size_file"] == 0.1
    out_file = tmp_path / "pages.tsv"
    assert bitext_main(["export", "pages", "--db", str(tmp_path / "e.db"), "-o", str(out_file)]) == 0
    lines = out_file.read_text().splitlines()
    assert lines[0].startswith("url\tlang") and len(lines) == 5


def test_export_missing_database(tmp_path, capsys):
    assert bitext_main(["export", "pairs", "--db", str(tmp_path / "none.db")]) == 2
    assert "no database" in capsys.readouterr().err


def test_database_of_an_earlier_version_gets_the_new_columns(tmp_path):
    import sqlite3

    from sqlalchemy import inspect

    from bitext_spider.store.models import make_engine

    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.execute("create table pages (id integer primary key, site_id integer, url varchar(2048) unique)")
    con.execute("insert into pages (site_id, url) values (1, 'http://a.test/')")
    con.commit()
    con.close()
    engine = make_engine(f"sqlite:///{path}")
    assert "paragraphs" in {c["name"] for c in inspect(engine).get_columns("pages")}
    make_engine(f"sqlite:///{path}").dispose()  # idempotent
    engine.dispose()
