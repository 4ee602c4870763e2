"""Database schema (SQLAlchemy 2.x) and engine set-up.

Tables: ``sites``, ``pages`` (one row per fetched HTML page, with what resuming needs: its
language, sizes, tag sequence, main-content paragraphs and outgoing links), ``candidates`` (page
pairs that passed every filter, with each filter's score), ``pairs`` (the one-to-one resolution of
the candidates), ``sentences`` (the aligned sentence pairs of every candidate the content filter
accepted; exports keep those of final pairs) and ``translation_models`` (the incremental EM
translation model of each language pair, so a resumed or repeated crawl continues from it),
``site_models`` (each site's own training of a crawl, added to ``translation_models`` when the
crawl or ``bitext schedule`` folds it; see ``bitext_spider.store.model_registry``), ``crawl_runs``
(each crawl's settings and final stats) and ``corrections`` (a person's verdicts on pairs, made in
``bitext view --annotate``).
Uniqueness is enforced by the database (``pages.url``; one row per page pair), and rows are
inserted with ``ON CONFLICT DO NOTHING`` so a resumed or repeated crawl adds no duplicates, and
several processes can write to one PostgreSQL database at once (see docs/deploy.md).

Schema changes are Alembic revisions in ``bitext_spider/store/migrations/versions``.  Opening a store
(:func:`make_engine` with ``create=True``) creates a missing schema and stamps it with the newest
revision, or upgrades an older one (under a PostgreSQL advisory lock, so concurrent openers wait
for each other); :func:`upgrade` (``bitext db upgrade``) does the same explicitly.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    inspect,
    text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


_URL = String(2048).with_variant(Text(), "postgresql")


class SiteRow(Base):
    __tablename__ = "sites"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(1024), unique=True)
    start_urls: Mapped[list[str]] = mapped_column(JSON, default=list)


class PageRow(Base):
    __tablename__ = "pages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id"), index=True)
    # VARCHAR(2048) on SQLite (which does not enforce lengths); unbounded on PostgreSQL, which
    # would reject longer URLs (Scrapy's URLLENGTH_LIMIT is 2083).  URLs are ASCII (Scrapy
    # percent-encodes them), so the unique btree index's ~2700-byte row limit is not reached.
    url: Mapped[str] = mapped_column(_URL, unique=True)
    requested_url: Mapped[str] = mapped_column(_URL, default="")
    status: Mapped[int] = mapped_column(Integer, default=200)
    depth: Mapped[int] = mapped_column(Integer, default=0)
    fetched_at: Mapped[float] = mapped_column(Float, default=0.0)
    content_type: Mapped[str] = mapped_column(String(255), default="")
    encoding: Mapped[str] = mapped_column(String(64), default="")
    size_bytes: Mapped[int] = mapped_column(Integer, default=0)
    size_chars: Mapped[int] = mapped_column(Integer, default=0)
    n_tags: Mapped[int] = mapped_column(Integer, default=0)
    n_paragraphs: Mapped[int] = mapped_column(Integer, default=0)
    n_words: Mapped[int] = mapped_column(Integer, default=0)
    lang: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    lang_score: Mapped[float] = mapped_column(Float, default=0.0)
    declared_lang: Mapped[str] = mapped_column(String(32), default="")
    eligible: Mapped[bool] = mapped_column(Boolean, default=False)
    title: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text, default="")
    tokens: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    links: Mapped[list[str]] = mapped_column(JSON, default=list)
    # Main content as [[kind, lang, text], ...] (matchers.page.main_content), boilerplate left out.
    paragraphs: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # Outgoing links as [[url, anchor text, hreflang], ...] and image file names (link and image
    # evidence, recomputed site-wide when the crawl closes).
    outlinks: Mapped[list[Any]] = mapped_column(JSON, default=list)
    images: Mapped[list[str]] = mapped_column(JSON, default=list)
    note: Mapped[str] = mapped_column(String(255), default="")
    # The URL the page's rel=canonical names when it is not the page's own: the page is a copy.
    canonical: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The day the page says it was published (a date.toordinal()), for comparing news articles
    # only with those published close in time (matchers.page.publication_date).
    published: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The response's ETag and Last-Modified: a repeated crawl asks for listing pages conditionally.
    etag: Mapped[str] = mapped_column(String(255), default="", server_default="")
    last_modified: Mapped[str] = mapped_column(String(64), default="", server_default="")
    # A focused crawl's relevance of the page to its domain (matchers.page.topic_relevance):
    # {"domain", "p", "m", "relevant", "terms", "subdomains", "paragraphs": each stored
    # paragraph's domain terms, "links": the request priority of each of ``links``}; NULL for a
    # crawl without a domain.
    topic: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class _PagePair:
    """Columns shared by candidates and pairs: two pages of one site (page1_id < page2_id)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id"))
    page1_id: Mapped[int] = mapped_column(ForeignKey("pages.id"))
    page2_id: Mapped[int] = mapped_column(ForeignKey("pages.id"))
    lang1: Mapped[str] = mapped_column(String(16))
    lang2: Mapped[str] = mapped_column(String(16))
    score: Mapped[float] = mapped_column(Float)


class CandidateRow(_PagePair, Base):
    __tablename__ = "candidates"
    __table_args__ = (
        UniqueConstraint("page1_id", "page2_id", name="uq_candidate_pages"),
        Index("ix_candidates_site", "site_id"),
        # The viewer's pair list: ordered by score, filtered by deciding evidence.
        Index("ix_candidates_score", "score", "id"),
        Index("ix_candidates_deciding", "deciding", "score", "id"),
        # A page's candidates and pairs as their second page (the unique constraints cover the first).
        Index("ix_candidates_page2", "page2_id"),
    )
    scores: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The site-level decision at close (matchers/site/site_decision.py); only accepted candidates are
    # resolved into pairs.
    accepted: Mapped[bool] = mapped_column(Boolean, default=True)
    # The decision term that settled it (bitext_spider.store.deciding), for filtering without JSON.
    deciding: Mapped[str | None] = mapped_column(String(32), nullable=True)


class PairRow(_PagePair, Base):
    __tablename__ = "pairs"
    __table_args__ = (
        UniqueConstraint("page1_id", "page2_id", name="uq_pair_pages"),
        Index("ix_pairs_site", "site_id"),
        Index("ix_pairs_score", "score", "id"),
        Index("ix_pairs_page2", "page2_id"),
    )


class SentenceRow(Base):
    """One aligned sentence pair of a candidate page pair (``text1`` is in ``lang1``, page1's)."""

    __tablename__ = "sentences"
    __table_args__ = (
        UniqueConstraint("page1_id", "page2_id", "position", name="uq_sentence_position"),
        Index("ix_sentences_pages", "page1_id", "page2_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id"))
    page1_id: Mapped[int] = mapped_column(ForeignKey("pages.id"))
    page2_id: Mapped[int] = mapped_column(ForeignKey("pages.id"))
    position: Mapped[int] = mapped_column(Integer)
    lang1: Mapped[str] = mapped_column(String(16))
    lang2: Mapped[str] = mapped_column(String(16))
    text1: Mapped[str] = mapped_column(Text)
    text2: Mapped[str] = mapped_column(Text)
    score: Mapped[float] = mapped_column(Float)


class TranslationModelRow(Base):
    """State of the translation model of one language pair (``lang1`` < ``lang2``)."""

    __tablename__ = "translation_models"
    __table_args__ = (UniqueConstraint("lang1", "lang2", name="uq_model_langs"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lang1: Mapped[str] = mapped_column(String(16))
    lang2: Mapped[str] = mapped_column(String(16))
    pairs_seen: Mapped[int] = mapped_column(Integer, default=0)
    sentences_seen: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[bytes] = mapped_column(LargeBinary)


class SiteModelRow(Base):
    """One site's training of a language pair's model not yet folded into ``translation_models``:
    the expected counts as a model snapshot (``min_count`` 0, so nothing is pruned)."""

    __tablename__ = "site_models"
    __table_args__ = (UniqueConstraint("site_id", "lang1", "lang2", name="uq_site_model"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id"))
    lang1: Mapped[str] = mapped_column(String(16))
    lang2: Mapped[str] = mapped_column(String(16))
    pairs_seen: Mapped[int] = mapped_column(Integer, default=0)
    sentences_seen: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[bytes] = mapped_column(LargeBinary)


class CrawlRunRow(Base):
    """One crawl: its spider, when it started and finished, the settings it ran with (every
    ``BITEXT_*`` setting and the Scrapy settings that shape a crawl) and its stats at close."""

    __tablename__ = "crawl_runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    spider: Mapped[str] = mapped_column(String(255), default="")
    started_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    stats: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class CorrectionRow(Base):
    """A person's verdict on a page pair (``bitext view --annotate``): ``right`` or ``wrong`` for a
    pair the crawl found, ``missed`` for two pages it should have paired; ``bitext export gold``
    writes them as a gold standard."""

    __tablename__ = "corrections"
    __table_args__ = (Index("ix_corrections_urls", "url1", "url2"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    url1: Mapped[str] = mapped_column(_URL)
    lang1: Mapped[str] = mapped_column(String(16), default="")
    url2: Mapped[str] = mapped_column(_URL)
    lang2: Mapped[str] = mapped_column(String(16), default="")
    verdict: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[float] = mapped_column(Float)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cur = dbapi_connection.cursor()
    # WAL lets the exporter read while a crawl writes; busy_timeout waits out a concurrent writer.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _json_serializer(value: Any) -> str:
    """Standard JSON, NaN and Infinity stored as null: PostgreSQL's ``json`` type rejects them,
    and SQLite's JSON functions (which the one-to-one resolution reads scores with) fail on the
    whole value."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def make_engine(url: str, create: bool = True) -> Engine:
    """Engine for ``url``; creates or upgrades the schema (idempotently) unless ``create`` is false."""
    if url.startswith("postgresql"):
        engine = create_engine(url, json_serializer=_json_serializer, pool_pre_ping=True)
    else:
        engine = create_engine(url, json_serializer=_json_serializer)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    if create:
        ensure_schema(engine)
    return engine


# Columns added after a table was first released, before migrations were Alembic revisions:
# (table, column, type, default).  A database made by such an early version gets them when it is
# first stamped; later changes are revisions in bitext_spider/store/migrations/versions.
_ADDED_COLUMNS = (
    ("pages", "paragraphs", JSON(), None),
    ("pages", "outlinks", JSON(), None),
    ("pages", "images", JSON(), None),
    ("candidates", "accepted", Boolean(), True),
)

# Key of the PostgreSQL advisory lock held while the schema is created or upgraded.
SCHEMA_LOCK = 0x62697465  # "bite"


@functools.lru_cache(maxsize=1)
def migrations_dir() -> Path:
    """The Alembic scripts as a real directory.

    Alembic reads its scripts from the file system; deployed as an egg (a zip, as Scrapyd runs
    it), the package's ``migrations`` folder is not one, so it is copied out once per process
    through ``importlib.resources``.
    """
    here = Path(__file__).with_name("migrations")
    if here.is_dir():
        return here
    import atexit
    import importlib.resources
    import shutil
    import tempfile

    target = Path(tempfile.mkdtemp(prefix="bitext-migrations-")) / "migrations"
    atexit.register(shutil.rmtree, target.parent, True)

    def copy(src: Any, dst: Path) -> None:
        dst.mkdir(parents=True, exist_ok=True)
        for item in src.iterdir():
            if item.is_dir():
                if item.name != "__pycache__":
                    copy(item, dst / item.name)
            else:
                (dst / item.name).write_bytes(item.read_bytes())

    copy(importlib.resources.files("bitext_spider.store") / "migrations", target)
    return target


def _add_missing_columns(conn: Connection) -> None:
    inspector = inspect(conn)
    dialect = conn.dialect
    for table, column, sql_type, default in _ADDED_COLUMNS:
        if column not in {c["name"] for c in inspector.get_columns(table)}:
            ddl = f"ALTER TABLE {table} ADD COLUMN {column} {sql_type.compile(dialect=dialect)}"
            if default is not None:
                literal = sql_type.literal_processor(dialect)
                ddl += f" DEFAULT {literal(default) if literal else default!r}"
            conn.execute(text(ddl))


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Any:
    """Programmatic Alembic configuration (no alembic.ini needed; the scripts ship in the package)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@functools.lru_cache(maxsize=1)
def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def ensure_schema(engine: Engine) -> None:
    """Create the schema, bring an unversioned one up to date, or upgrade an older revision to head.

    Idempotent and safe when several processes open the same database at once: on PostgreSQL the
    whole step runs in one transaction holding an advisory lock (PostgreSQL DDL is transactional).
    """
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SCHEMA_LOCK})
        _ensure_schema(conn)


def _ensure_schema(conn: Connection) -> None:
    from alembic import command

    head = head_revision()
    current = current_revision(conn)
    if current == head:
        return
    cfg = alembic_config(connection=conn)
    if current is None:
        # A new database, or one made before Alembic: create what is missing, then stamp it.
        Base.metadata.create_all(conn)
        _add_missing_columns(conn)
        command.stamp(cfg, "head")
    else:
        command.upgrade(cfg, "head")


def upgrade(url: str, revision: str = "head") -> str | None:
    """Apply migrations to ``url`` (creating the schema when it is empty); returns the new revision."""
    engine = make_engine(url, create=False)
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SCHEMA_LOCK})
            if revision == "head":
                _ensure_schema(conn)
            else:
                from alembic import command

                command.upgrade(alembic_config(connection=conn), revision)
            return current_revision(conn)
    finally:
        engine.dispose()
