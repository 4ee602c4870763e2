"""Database schema (SQLAlchemy 2.x) and engine set-up.

Tables: ``sites``, ``pages`` (one row per fetched HTML page, with what resuming needs: its
language, sizes, tag sequence and outgoing links), ``candidates`` (page pairs that passed every
filter, with each filter's score) and ``pairs`` (the one-to-one resolution of the candidates).
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


class PairRow(_PagePair, Base):
    __tablename__ = "pairs"
    __table_args__ = (
        UniqueConstraint("page1_id", "page2_id", name="uq_pair_pages"),
        Index("ix_pairs_site", "site_id"),
    )


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
    return engine
