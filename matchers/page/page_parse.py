"""Everything a page's own bytes give, computed in one call: decoding, the STRAND linearization,
the page language, links, image names and the main-content paragraphs with their languages and
sentences.

These are the per-page steps of the normalize, language, link/image evidence and main-content
stages (Tomás et al., *WebMining*, section 2.1; Papavassiliou et al., *ILSP-FC*, sections
3.2-3.4), gathered so that they can run in a worker process (pipelines.page_parse): none of them
needs anything but the page and the settings.  What depends on the site's other pages (repeated
boilerplate, the index, the evidence tables) stays in the stages, which finish the work in arrival
order.  :func:`parse_page` is the only parse: in the parse worker, in the crawl process with
``BITEXT_PARSE_WORKERS=0`` (``BitextRuntime.parse_page``), or for an item that reaches a stage
unparsed (``MatchingStage.parsed``); the stages read its result and never parse again.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from matchers.page.content_draft import ContentDraft, draft_content
from matchers.page.decoding import Decoded, decode_html, looks_binary
from matchers.page.lang_codes import primary_subtag, same_language
from matchers.page.language_id import MAX_CHARS, UNDETERMINED, LanguageIdentifier, identification_text
from matchers.page.linearize import Linearized, linearize, parse_html, word_count
from matchers.page.main_content import Paragraph, extract_paragraphs, paragraph_keys
from matchers.page.outlinks import Outlink, canonical_link, follow_links, outlinks
from matchers.page.page_content import Piece, split_paragraph
from matchers.page.publication_date import publication_day
from matchers.page.script_length import script_weighted_length
from matchers.site.image_evidence import image_names

_DIGITS = re.compile(r"\d+")

# Paragraphs of at least this many words get their own language; shorter ones are too short to
# identify and take the page's (ILSP-FC 3.4 marks paragraphs "not in the targeted language").
MIN_PARAGRAPH_LID_WORDS = 6


@dataclass(frozen=True)
class ParseOptions:
    """The settings the page-only steps read (from ``BitextConfig``; small, so it travels to a worker)."""

    max_tag_tokens: int = 30000
    lang_min_words: int = 5
    lang_max_chars: int = MAX_CHARS
    lang_min_confidence: float = 0.0
    langs: frozenset[str] | None = None  # base languages of interest; None: every language
    main_content: bool = True  # a content stage (content or dictionary filter) is on
    evidence: bool = True  # the site-evidence stages are on: extract the links and images they read
    # Extensions of links not followed (files, not pages); None: Scrapy's IGNORED_EXTENSIONS.
    ignored_extensions: tuple[str, ...] = ()

    def wants(self, lang: str | None) -> bool:
        """As ``BitextConfig.wants``: a determined language among those of interest."""
        if not lang or lang == UNDETERMINED:
            return False
        return self.langs is None or primary_subtag(lang) in self.langs


@dataclass
class ParsedPage:
    """The results of :func:`parse_page`; ``binary`` pages have nothing else."""

    binary: bool = False
    decoded: Decoded | None = None
    size_chars: int = 0
    features: Linearized | None = None
    lang: str = UNDETERMINED
    lang_score: float = 0.0
    outlinks: list[Outlink] = field(default_factory=list)
    follow: list[str] = field(default_factory=list)  # the links the spider follows (outlinks.follow_links)
    images: list[str] = field(default_factory=list)
    canonical: str | None = None  # the URL its rel=canonical names, when not its own
    published: int | None = None  # publication day (matchers.page.publication_date)
    # Main content, when the page is eligible and a content stage needs it (else None): jusText's
    # paragraphs, each one's own language (None: too short or boilerplate, not identified), each
    # one's key for the site's count of repeated texts (matchers.page.main_content.paragraph_keys),
    # and the sentences of those in the page's language (matchers.page.content_draft).
    paragraphs: list[Paragraph] | None = None
    paragraph_langs: list[str | None] = field(default_factory=list)
    paragraph_keys: list[int | None] = field(default_factory=list)
    draft: ContentDraft | None = None
    cpu_seconds: float = 0.0


def too_large(features: Linearized, options: ParseOptions) -> bool:
    return bool(options.max_tag_tokens) and len(features.tokens) > options.max_tag_tokens


def letter_words(text: str) -> int:
    """Words with a letter in them (:func:`word_count` less numbers, dates and codes made of digits):
    what language identification has to go on.  fastText names a language for "Item 1234" or
    "2024-03-05" with high confidence, and a template page whose only text is a label and a number
    is given Hebrew on one page and Esperanto on the next."""
    return word_count(_DIGITS.sub(" ", text))


def _has_letter_words(text: str, n: int) -> bool:
    """``letter_words(text) >= n``, deciding from the first tokens where it can (most pages)."""
    found = 0
    for token in text.split():
        if any(c.isalpha() for c in token):
            found += 1
            if found >= n:
                return True
    # Fewer letter-bearing tokens than n: CJK and Thai text counts words within its tokens.
    return n <= 0 or letter_words(text) >= n


def page_language(features: Linearized | None, options: ParseOptions, language: LanguageIdentifier) -> tuple[str, float]:
    """The page's language from its text; undetermined when the text it is identified from (less
    menus, page chrome and code) has fewer than ``BITEXT_LANG_MIN_WORDS`` words with letters."""
    if features is None:
        return UNDETERMINED, 0.0
    text = identification_text(features.blocks, features.block_tags, features.block_chrome)
    # fastText reads the first lang_max_chars characters: they are what must hold the words.
    if not _has_letter_words(text[:options.lang_max_chars], options.lang_min_words):
        return UNDETERMINED, 0.0
    return language.identify(text, options.lang_min_confidence, options.lang_max_chars)


def paragraph_language(text: str, page_lang: str, options: ParseOptions, language: LanguageIdentifier) -> str:
    """A main-content paragraph's language: its own if long enough to identify, else the page's."""
    if letter_words(text) >= MIN_PARAGRAPH_LID_WORDS:
        return language.identify(text, options.lang_min_confidence, options.lang_max_chars)[0]
    return page_lang


def parse_page(
    body: bytes, content_type: str | None, url: str, options: ParseOptions, language: LanguageIdentifier
) -> ParsedPage:
    """Every page-only step of the stages, in their order; never raises on bad input."""
    return parse_pages([(body, content_type, url)], options, language)[0]


def parse_pages(
    pages: list[tuple[bytes, str | None, str]], options: ParseOptions, language: LanguageIdentifier
) -> list[ParsedPage]:
    """:func:`parse_page` of each ``(body, content_type, url)``, one step at a time across the
    pages: each step's code and data (fastText's model above all, about 16 MB) then stay in the
    CPU caches from one page to the next instead of being evicted by the other steps."""
    started = []
    for body, content_type, _ in pages:
        t0 = time.process_time()
        out, root = _markup(body, content_type, options)
        out.cpu_seconds = time.process_time() - t0
        started.append((out, root))
    for out, _ in started:
        if not out.binary:
            t0 = time.process_time()
            out.lang, out.lang_score = page_language(out.features, options, language)
            out.cpu_seconds += time.process_time() - t0
    for (out, root), (_, _, url) in zip(started, pages, strict=True):
        if not out.binary:
            t0 = time.process_time()
            _links_and_content(out, root, url, options, language)
            out.cpu_seconds += time.process_time() - t0
    return [out for out, _ in started]


def _markup(body: bytes, content_type: str | None, options: ParseOptions) -> tuple[ParsedPage, Any]:
    """Decoding, the tree and the STRAND linearization; a binary page has nothing else."""
    if looks_binary(body):
        return ParsedPage(binary=True), None
    decoded = decode_html(body, content_type)
    html = decoded.text
    # One parse for the tag sequence, the links and the images.
    root = parse_html(html)
    features = linearize(root, max_tokens=options.max_tag_tokens)
    return ParsedPage(decoded=decoded, size_chars=script_weighted_length(html), features=features), root


def _links_and_content(out: ParsedPage, root: Any, url: str, options: ParseOptions, language: LanguageIdentifier) -> None:
    """What comes after the page language: links, images and the main content."""
    assert out.decoded is not None and out.features is not None
    if options.evidence:
        out.outlinks = outlinks(root, url)
        out.images = image_names(root, url)
    out.follow = follow_links(root, url, out.decoded.encoding, options.ignored_extensions)
    out.canonical = canonical_link(root, url)
    out.published = publication_day(root, url)
    if out.canonical is not None and out.canonical not in out.follow:
        out.follow.append(out.canonical)  # the page itself, of which this one is a copy
    if options.wants(out.lang) and not too_large(out.features, options) and options.main_content:
        out.paragraphs = extract_paragraphs(out.decoded.text, out.lang)
        pieces: list[list[Piece] | None] = []
        for p in out.paragraphs:
            # Paragraphs jusText calls boilerplate are never kept; the site-level marking in the
            # stage only adds boilerplate, so every paragraph it keeps has its language here.
            plang = None if p.boilerplate else paragraph_language(p.text, out.lang, options, language)
            out.paragraph_langs.append(plang)
            same = plang is not None and (plang == UNDETERMINED or same_language(plang, out.lang))
            pieces.append(split_paragraph(p.text, out.lang) if same else None)
        out.paragraph_keys = paragraph_keys(out.paragraphs, out.lang)
        out.draft = draft_content(pieces, out.lang)
