"""The store on PostgreSQL: the SQLite store tests again, Alembic migrations, two processes writing
overlapping pages and candidates at once, and a real crawl into PostgreSQL.

Needs a PostgreSQL server (tests/pg_server.py starts a throw-away one); skips only when none can be
started, and fails instead when ``BITEXT_REQUIRE_POSTGRES=1`` (CI).
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import subprocess
import sys

import numpy as np
import pytest
from pg_server import create_database, postgres_server
from sqlalchemy import func, inspect, select, text
from sqlalchemy.orm import Session

from bitext_spider.store.database import Store
from bitext_spider.store.models import (
    Base,
    CandidateRow,
    PageRow,
    PairRow,
    SentenceRow,
    TranslationModelRow,
    current_revision,
    head_revision,
    make_engine,
    upgrade,
)
from bitext_spider.store.records import CandidateRecord, ModelRecord, PageRecord, SentenceRecord

# Crawls in subprocesses or against servers: the full tier only (pytest -m "not slow" skips them).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pg_server():
    with postgres_server() as url:
        yield url


@pytest.fixture
def pg_url(pg_server):
    return create_database(pg_server)


def _page(url, lang, cands=(), site_id=1, **extra):
    values = dict(url=url, lang=lang, eligible=True, size_bytes=100, size_chars=100, n_tags=5,
                  n_paragraphs=2, tokens=np.array([-1, 3, -2], np.int32).tobytes(), links=[url + "/next"],
                  title="t", text="x", paragraphs=[["p", lang, "Hello"]], outlinks=[[url + "/n", "next", ""]],
                  images=["a.png"])
    values.update(extra)
    return PageRecord(site_id=site_id, values=values,
                      candidates=[CandidateRecord(u, lng, s, {"structure": s, "size_file": 0.1}) for u, lng, s in cands])


def _fill(store):
    site = store.ensure_site("a.example", ["http://a.example/"])
    assert store.ensure_site("a.example", []) == site
    store.write([_page("http://a/en1", "en", site_id=site), _page("http://a/en2", "en", site_id=site)])
    store.write([_page("http://a/fr1", "fr", [("http://a/en1", "en", 0.9), ("http://a/en2", "en", 0.6)], site_id=site)])
    store.write([_page("http://a/fr2", "fr", [("http://a/en1", "en", 0.8), ("http://a/en2", "en", 0.7)], site_id=site)])
    return site


def _count(store, model):
    with Session(store.engine) as s:
        return s.scalar(select(func.count()).select_from(model))


def test_schema_creation_is_idempotent_and_matches_the_migrations(pg_url):
    assert pg_url.startswith("postgresql+psycopg://")
    for _ in range(2):
        engine = make_engine(pg_url)
        engine.dispose()
    engine = make_engine(pg_url)
    try:
        names = set(inspect(engine).get_table_names())
        assert {"sites", "pages", "candidates", "pairs", "sentences", "translation_models", "alembic_version"} <= names
        with engine.connect() as conn:
            assert current_revision(conn) == head_revision()
            # URLs are unbounded text on PostgreSQL (VARCHAR(2048) would reject long ones).
            assert conn.execute(text(
                "SELECT data_type FROM information_schema.columns WHERE table_name='pages' AND column_name='url'"
            )).scalar_one() == "text"
    finally:
        engine.dispose()


def test_alembic_migrations_build_the_same_schema_as_the_models(pg_url):
    """``bitext db upgrade`` on an empty database runs the revisions; autogenerate then finds nothing."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from bitext_spider.commands.db_cli import main as db_main

    engine = make_engine(pg_url, create=False)
    try:
        assert upgrade(pg_url, "0001") == "0001"  # through the revision scripts, not create_all
        with engine.begin() as conn:  # a model stored by a crawl of the 0001 schema
            conn.execute(text("INSERT INTO translation_models (lang1, lang2, pairs_seen, sentences_seen, state) "
                              "VALUES ('en', 'fr', 1, 3, 'x')"))
        # behind: 0002 (site_models), 0003 (pages.canonical), 0004 (pages.published), 0005
        # (pages.topic) and 0006 (the viewer's tables) are pending
        assert db_main(["db", "current", "--db", pg_url]) == 1
        assert upgrade(pg_url) == head_revision() == "0006"
        assert {"canonical", "published", "topic"} <= {c["name"] for c in inspect(engine).get_columns("pages")}
        assert db_main(["db", "current", "--db", pg_url]) == 0
        store = Store(pg_url, create=False)
        assert store.model_row("en", "fr").version == (3, 1) and store.site_models() == []
        store.close()
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], diff
    finally:
        engine.dispose()


def test_write_is_idempotent_and_resolution_is_one_to_one(pg_url):
    store = Store(pg_url)
    try:
        site = _fill(store)
        again = Store(pg_url)  # a repeated crawl: same rows again, from a fresh store
        _fill(again)
        again.close()
        assert _count(store, PageRow) == 4
        assert _count(store, CandidateRow) == 4
        assert store.resolve_site(site) == {"en-fr": 2}
        assert store.resolve_site(site) == {"en-fr": 2}  # replaces, does not add
        assert _count(store, PairRow) == 2
        pairs = {(r.url1, r.url2) for r in store.pairs()}
        assert pairs == {("http://a/en1", "http://a/fr1"), ("http://a/en2", "http://a/fr2")}
        stored = list(store.stored_pages(site))
        assert [p.url for p in stored] == ["http://a/en1", "http://a/en2", "http://a/fr1", "http://a/fr2"]
        assert stored[0].tokens.tolist() == [-1, 3, -2] and stored[0].links == ["http://a/en1/next"]
        assert stored[0].paragraphs == [("p", "en", "Hello")] and stored[0].images == ["a.png"]
    finally:
        store.close()


def test_values_postgresql_would_reject_are_stored(pg_url):
    """Long URLs, NUL characters and NaN scores are accepted on SQLite; they must not lose a page here."""
    store = Store(pg_url)
    try:
        site = store.ensure_site("b.example", [])
        long_url = "http://b/" + "x" * 3000
        store.write([_page(long_url, "en", site_id=site, title="a\x00b", text="nul\x00")])
        store.write([_page("http://b/fr", "fr", [(long_url, "en", 0.5)], site_id=site)])
        store.add_candidates(site, [(long_url, "en", "http://b/fr", "fr", 0.4, {"x": math.nan})])
        pages = {p.url: p for p in store.pages()}
        assert pages[long_url].title == "ab"
        assert _count(store, CandidateRow) == 1
    finally:
        store.close()


def test_models_are_upserted(pg_url):
    store = Store(pg_url)
    try:
        store.save_models([ModelRecord("en", "fr", 1, 10, b"one"), ModelRecord("en", "fr", 2, 20, b"two"),
                          ModelRecord("de", "en", 1, 5, b"de")])
        store.save_models([ModelRecord("en", "fr", 3, 30, b"three")])
        assert store.load_model("en", "fr") == b"three"
        assert store.load_model("de", "en") == b"de"
        assert store.load_model("en", "es") is None
        assert _count(store, TranslationModelRow) == 2
    finally:
        store.close()


def test_sentences_and_decisions(pg_url):
    store = Store(pg_url)
    try:
        site = _fill(store)
        cands = store.site_candidates(site)
        assert len(cands) == 4
        # Reject en1-fr1, keep the others; add one new candidate (id < 0) that is stored by now.
        rows = [(c.id, c.url1, c.lang1, c.url2, c.lang2, c.score, {**c.scores, "d": 1.0},
                 not (c.url1.endswith("en1") and c.url2.endswith("fr1"))) for c in cands]
        store.write([_page("http://a/de1", "de", site_id=site)])
        rows.append((-1, "http://a/de1", "de", "http://a/en1", "en", 0.3, {"d": 0.5}, False))
        store.save_decisions(site, rows)
        after = {(c.url1, c.url2): c for c in store.site_candidates(site)}
        assert len(after) == 5 and all(c.scores.get("d") is not None for c in after.values())
        with Session(store.engine) as s:
            accepted = dict(s.execute(select(CandidateRow.id, CandidateRow.accepted)).all())
        assert sum(accepted.values()) == 3
        assert store.resolve_site(site) == {"en-fr": 2}
        assert {(r.url1, r.url2) for r in store.pairs()} == {("http://a/en1", "http://a/fr2"),
                                                             ("http://a/en2", "http://a/fr1")}
        pairs = store.site_pairs(site)
        sents = [SentenceRecord(p1, p2, i, l1, l2, f"s{i}\x00", f"t{i}", 0.9)
                 for p1, _u1, l1, p2, _u2, l2 in pairs for i in range(3)]
        store.replace_sentences(site, sents)
        store.replace_sentences(site, sents)  # replaces, does not add
        assert _count(store, SentenceRow) == 6
        store.delete_candidates([c.id for c in store.site_candidates(site)][:1])
        assert _count(store, CandidateRow) == 4
    finally:
        store.close()


# -- two processes at once --------------------------------------------------------------------
N_PAGES = 240
BATCH = 12


def _writer(url: str, seed: int, barrier) -> None:
    """Write all pages (and their candidates) in a shuffled, overlapping order, many batches."""
    store = Store(url)  # both processes also create the schema at the same time
    site = store.ensure_site("c.example", ["http://c/"])
    barrier.wait(60)
    order = np.random.default_rng(seed).permutation(N_PAGES).tolist()
    for rep in range(2):  # and then everything again
        for i in range(0, N_PAGES, BATCH):
            batch = []
            for k in order[i : i + BATCH]:
                lang = "en" if k % 2 == 0 else "fr"
                # Candidates only to pages this process wrote before (as the crawler does).
                done = order[: i] if rep == 0 else order
                cands = [(f"http://c/{j}", "en" if j % 2 == 0 else "fr", 0.5 + j / 1000)
                         for j in (k - 1, k - 3, k + 1) if 0 <= j < N_PAGES and j in set(done)]
                batch.append(_page(f"http://c/{k}", lang, cands, site_id=site))
            store.write(batch)
            store.add_candidates(site, [(f"http://c/{k}", "en", f"http://c/{(k + 2) % N_PAGES}", "en", 0.1, {})
                                        for k in order[i : i + BATCH]])
            store.save_models([ModelRecord("en", "fr", i, i, f"{seed}-{i}".encode())])
    store.resolve_site(site)
    store.close()


def test_two_processes_write_overlapping_pages_and_candidates(pg_url):
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(pg_url, seed, barrier)) for seed in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(240)
    assert [p.exitcode for p in procs] == [0, 0]
    store = Store(pg_url)
    try:
        with Session(store.engine) as s:
            urls = [u for (u,) in s.execute(select(PageRow.url))]
            pairs = [(a, b) for a, b in s.execute(select(CandidateRow.page1_id, CandidateRow.page2_id))]
            ids = dict(s.execute(select(PageRow.url, PageRow.id)).all())
        assert sorted(urls) == sorted(f"http://c/{k}" for k in range(N_PAGES))  # each exactly once
        assert len(pairs) == len(set(pairs))
        # Every candidate either process wrote is there: the neighbours (k, k±1, k-3) each
        # process saw, and the close-time (k, k+2) ones.
        expected = set()
        for k in range(N_PAGES):
            for j in (k - 1, k - 3, k + 1):
                if 0 <= j < N_PAGES:
                    expected.add(tuple(sorted((ids[f"http://c/{k}"], ids[f"http://c/{j}"]))))
            expected.add(tuple(sorted((ids[f"http://c/{k}"], ids[f"http://c/{(k + 2) % N_PAGES}"]))))
        assert set(pairs) == expected
        assert _count(store, TranslationModelRow) == 1
        assert _count(store, PairRow) > 0
    finally:
        store.close()


# -- a crawl into PostgreSQL --------------------------------------------------------------------
def test_crawl_into_postgresql_and_export(pg_url, tmp_path):
    from support import ROOT, gold_of, pairs_of, scrapy_crawl

    from bitext_spider.demo.loopback_server import free_port, serve_site
    from bitext_spider.demo.site import generate_site

    root = tmp_path / "site"
    port = free_port()
    info = generate_site(root, base_url=f"http://127.0.0.1:{port}", n_docs=12, langs=("en", "fr"), seed=5,
                         coverage=1.0, extras=False)
    with serve_site(root, port=port):
        proc = scrapy_crawl(info.seeds_path, pg_url)
        assert proc.returncode == 0, proc.stderr[-3000:]
        again = scrapy_crawl(info.seeds_path, pg_url)  # a repeated crawl adds no duplicates
        assert again.returncode == 0, again.stderr[-3000:]
    found = pairs_of(pg_url)
    gold = gold_of(info)
    assert len(found & gold) >= 0.8 * len(gold), (len(found & gold), len(gold))
    store = Store(pg_url, create=False)
    try:
        with Session(store.engine) as s:
            urls = [u for (u,) in s.execute(select(PageRow.url))]
        assert len(urls) == len(set(urls)) > 0
    finally:
        store.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", "export", "pairs", "--db", pg_url,
                          "--format", "jsonl"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert {frozenset((r["url1"], r["url2"])) for r in rows} == found


def test_deadlocks_are_retried(pg_url, monkeypatch):
    """A transaction PostgreSQL aborted as a deadlock victim is run again, not lost."""
    from sqlalchemy.exc import DBAPIError

    class Deadlock(Exception):
        sqlstate = "40P01"

    store = Store(pg_url)
    try:
        site = store.ensure_site("d.example", [])
        real, calls = store._write_pages, []

        def flaky(records):
            calls.append(1)
            if len(calls) < 3:
                raise DBAPIError("INSERT", {}, Deadlock("deadlock detected"))
            return real(records)

        monkeypatch.setattr(store, "_write_pages", flaky)
        store.write([_page("http://d/1", "en", site_id=site)])
        assert len(calls) == 3 and [p.url for p in store.pages()] == ["http://d/1"]
        calls.clear()

        def broken(records):
            raise DBAPIError("INSERT", {}, ValueError("not retryable"))

        monkeypatch.setattr(store, "_write_pages", broken)
        with pytest.raises(DBAPIError):
            store.write([_page("http://d/2", "en", site_id=site)])
    finally:
        store.close()


def test_sqlite_is_stamped_too_and_cli_upgrade(tmp_path):
    """Not PostgreSQL-specific: a SQLite database is created at the head revision as well."""
    from bitext_spider.commands.db_cli import main as db_main

    path = tmp_path / "s.db"
    assert db_main(["db", "current", "--db", str(path)]) == 1
    assert db_main(["db", "upgrade", "--db", str(path)]) == 0
    assert db_main(["db", "current", "--db", str(path)]) == 0
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            assert current_revision(conn) == head_revision()
    finally:
        engine.dispose()
