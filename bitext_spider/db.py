"""Database schema (SQLAlchemy 2.x) and engine set-up.

Tables: ``sites``, ``pages`` (one row per fetched HTML page, with what resuming needs: its
language, sizes, tag sequence, main-content paragraphs and outgoing links), ``candidates`` (page
pairs that passed every filter, with each filter's score), ``pairs`` (the one-to-one resolution of
the candidates), ``sentences`` (the aligned sentence pairs of every candidate the content filter
accepted; exports keep those of final pairs) and ``translation_models`` (the incremental EM
translation model of each language pair, so a resumed or repeated crawl continues from it).
Uniqueness is enforced by the database (``pages.url``; one row per page pair), and rows are
inserted with ``ON CONFLICT DO NOTHING`` so a resumed or repeated crawl adds no duplicates.
"""

from __future__ import annotations

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
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class SiteRow(Base):
    __tablename__ = "sites"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(1024), unique=True)
    start_urls: Mapped[list[str]] = mapped_column(JSON, default=list)


class PageRow(Base):
    __tablename__ = "pages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    site_id: Mapped[int] = mapped_column(ForeignKey("sites.id"), index=True)
    url: Mapped[str] = mapped_column(String(2048), unique=True)
    requested_url: Mapped[str] = mapped_column(String(2048), default="")
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
    # Main content as [[kind, lang, text], ...] (matchers.main_content), boilerplate left out.
    paragraphs: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # Outgoing links as [[url, anchor text, hreflang], ...] and image file names (link and image
    # evidence, recomputed site-wide when the crawl closes).
    outlinks: Mapped[list[Any]] = mapped_column(JSON, default=list)
    images: Mapped[list[str]] = mapped_column(JSON, default=list)
    note: Mapped[str] = mapped_column(String(255), default="")


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
    )
    scores: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # The site-level decision at close (pipelines/decision.py); only accepted candidates are
    # resolved into pairs.
    accepted: Mapped[bool] = mapped_column(Boolean, default=True)


class PairRow(_PagePair, Base):
    __tablename__ = "pairs"
    __table_args__ = (
        UniqueConstraint("page1_id", "page2_id", name="uq_pair_pages"),
        Index("ix_pairs_site", "site_id"),
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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cur = dbapi_connection.cursor()
    # WAL lets the exporter read while a crawl writes; busy_timeout waits out a concurrent writer.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def make_engine(url: str, create: bool = True) -> Engine:
    """Engine for ``url``; creates the schema (idempotently) unless ``create`` is false."""
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    if create:
        Base.metadata.create_all(engine)
        _add_missing_columns(engine)
    return engine


# Columns added after a table was first released: (table, column, SQL type).  A database made by
# an earlier version gets them on open (the migration tool for later changes is issue #5's).
_ADDED_COLUMNS = (
    ("pages", "paragraphs", "JSON"),
    ("pages", "outlinks", "JSON"),
    ("pages", "images", "JSON"),
    ("candidates", "accepted", "BOOLEAN DEFAULT 1"),
)


def _add_missing_columns(engine: Engine) -> None:
    inspector = inspect(engine)
    for table, column, sql_type in _ADDED_COLUMNS:
        if column not in {c["name"] for c in inspector.get_columns(table)}:
            with engine.begin() as conn:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {sql_type}"))
