"""The page item that flows from the spider through the pipelines."""

from __future__ import annotations

from dataclasses import dataclass, field

from matchers.content.content_match import AlignedSentences
from matchers.page.linearize import Linearized
from matchers.page.page_content import PageContent, StoredParagraph
from matchers.page.page_parse import ParsedPage
from matchers.page.topic_relevance import TopicScore
from matchers.site.page_index import CandidateSet


@dataclass
class PageItem:
    """One fetched HTML page.

    The spider fills the first block; pipelines fill the rest in order: page parse (``parsed``,
    when worker processes parse pages), normalize (``html``,
    ``encoding``, ``features``), language (``lang``, ``lang_score``, ``eligible``), the candidate
    filters (``candidates``, narrowed by each), and the store.
    """

    url: str
    site: str
    body: bytes = field(repr=False)
    requested_url: str = ""
    status: int = 200
    depth: int = 0
    fetched_at: float = 0.0
    content_type: str = ""
    links: list[str] = field(default_factory=list, repr=False)

    parsed: ParsedPage | None = field(default=None, repr=False)  # from the page-parse worker, if any
    html: str | None = field(default=None, repr=False)
    encoding: str = ""
    size_chars: int = 0  # script-weighted characters of the decoded page (matchers.structure.size_ratio)
    features: Linearized | None = field(default=None, repr=False)
    too_large: bool = False
    canonical: str | None = None  # rel=canonical names this other URL: the page is a copy of it
    published: int | None = None  # publication day (date.toordinal()), when the page says
    etag: str = ""  # the response's validators, for a repeated crawl's conditional requests
    last_modified: str = ""
    lang: str | None = None
    lang_score: float = 0.0
    eligible: bool = False
    content: PageContent | None = field(default=None, repr=False)
    # The main-content paragraphs (kind, language, text) the content was made from: stored with
    # the page and read by the evidence stages at arrival; the site's index keeps only the content.
    paragraphs: list[StoredParagraph] = field(default_factory=list, repr=False)
    outlinks: list[tuple[str, str, str]] = field(default_factory=list, repr=False)
    images: list[str] = field(default_factory=list, repr=False)
    candidates: list[CandidateSet] = field(default_factory=list, repr=False)
    # Rows per language of the site's index when the page entered it (its own included): what
    # the page is compared with on content as it arrives (matchers.content.content_candidates).
    visible: dict[str, int] | None = field(default=None, repr=False)
    # The page's best match per language as a trained content model aligned it: (other URL,
    # other language, sentences), stored with the page.
    aligned: list[tuple[str, str, AlignedSentences]] = field(default_factory=list, repr=False)
    # Earlier pages' candidates judged again as their model matured, with the accepted ones'
    # sentences (first page's first): (url, language, other URL, other language, sentences),
    # stored with the page.
    realigned: list[tuple[str, str, str, str, AlignedSentences]] = field(default_factory=list, repr=False)
    note: str = ""
    # Relevance to the domain of a focused crawl (matchers.page.topic_relevance); None without one.
    topic: TopicScore | None = None
    # Each stored main-content paragraph's domain terms (ILSP-FC's ``topic`` attribute).
    paragraph_topics: list[list[str]] = field(default_factory=list, repr=False)
    # The request priority of each of ``links`` (a focused crawl's link scores), stored so that a
    # resumed crawl ranks its frontier as the interrupted one did.
    link_priorities: list[int] = field(default_factory=list, repr=False)


@dataclass
class PairItem:
    """Two pages that are translations of each other, as the crawl's items (feeds, ``-O``).

    ``status`` is ``"provisional"`` for a pair accepted as a page arrives (docs/design.md, "Pairs
    as they are found"; a later page may supersede it) and ``"final"`` for the one-to-one result
    the crawl ends with, which is what ``bitext export pairs`` gives.  ``lang1``/``url1`` and
    ``lang2``/``url2`` are in the order the database stores them.
    """

    lang1: str
    url1: str
    lang2: str
    url2: str
    score: float
    status: str = "provisional"
