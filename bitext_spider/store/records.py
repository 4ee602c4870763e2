"""What the crawl hands to the store and reads back from it: page and candidate records, stored
pages, site candidates, sentence pairs and translation-model rows, as plain dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class CandidateRecord:
    other_url: str
    other_lang: str
    score: float
    scores: dict[str, float]


@dataclass
class AlignedRecord:
    """The aligned sentences of the page with an earlier page, as a trained model aligned them when
    the page arrived: ``(own text, other text, probability)``, the page's own sentence first.
    With ``own_url``, two earlier pages' instead (a candidate judged again as its model matured),
    ``own_url``'s sentence first."""

    other_url: str
    other_lang: str
    pairs: list[tuple[str, str, float]]
    own_url: str = ""
    own_lang: str = ""


@dataclass
class PageRecord:
    """One page's row plus the candidates it found among earlier pages."""

    site_id: int
    values: dict[str, Any]
    candidates: list[CandidateRecord] = field(default_factory=list)
    aligned: list[AlignedRecord] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.values["url"]


@dataclass
class ModelRecord:
    """A snapshot of one language pair's translation model, written like a page record."""

    lang1: str
    lang2: str
    pairs_seen: int
    sentences_seen: int
    state: bytes


@dataclass
class StoredModel:
    """A language pair's stored model row; ``(sentences_seen, pairs_seen)`` is its version."""

    state: bytes
    pairs_seen: int
    sentences_seen: int

    @property
    def version(self) -> tuple[int, int]:
        return self.sentences_seen, self.pairs_seen


@dataclass
class StoredSiteModel:
    """A site's unfolded training of a language pair (a ``site_models`` row)."""

    site_id: int
    site_key: str
    lang1: str
    lang2: str
    model: StoredModel


@dataclass
class SiteCandidate:
    """A stored candidate with its pages' URLs (for site-level decisions at close)."""

    id: int
    page1_id: int
    url1: str
    lang1: str
    page2_id: int
    url2: str
    lang2: str
    score: float
    scores: dict[str, Any]


@dataclass
class SentenceRecord:
    """An aligned sentence pair of a final pair; ``text1`` is in ``lang1``, page1's language."""

    page1_id: int
    page2_id: int
    position: int
    lang1: str
    lang2: str
    text1: str
    text2: str
    score: float


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
    paragraphs: list[Any] = field(default_factory=list)
    outlinks: list[Any] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    canonical: str | None = None
    published: int | None = None
    etag: str = ""
    last_modified: str = ""
    topic: dict[str, Any] | None = None  # a focused crawl's relevance and link priorities
