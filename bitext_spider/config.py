"""``BITEXT_*`` settings declared once and parsed into a typed, immutable config.

Each field of :class:`BitextConfig` is one setting: its name is ``BITEXT_`` + the field name in
capitals, its type the field's annotation, and :func:`setting` records its default, its meaning
and the values it accepts.  Parsing (:meth:`BitextConfig.from_settings`), validation and the
reference page ``docs/settings.md`` (``python -m bitext_spider.reference``) are all derived
from these declarations, so a new setting is one new field.

Tests build a :class:`BitextConfig` directly (``BitextConfig()`` or ``BitextConfig.from_settings``
with a plain dict); components get it from the crawler with ``BitextConfig.from_crawler``.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matchers.page.lang_codes import primary_subtag
from matchers.page.language_id import MAX_CHARS

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from matchers.page.page_parse import ParseOptions

PREFIX = "BITEXT_"

# Sections of docs/settings.md, in the order they are listed there.
GROUPS = (
    "Crawl and storage",
    "Language identification",
    "Size and structure filters",
    "Content filter",
    "Dictionary filter",
    "Site-level evidence and decision",
    "Focused crawl",
    "Performance",
)


def parse_langs(value: Any) -> frozenset[str] | None:
    """``"en,fr"`` / ``["en", "fr"]`` -> ``{"en", "fr"}``; empty or None -> None (every language)."""
    if value is None:
        return None
    items: Iterable[str] = value.split(",") if isinstance(value, str) else value
    langs = frozenset(primary_subtag(x) for x in items if x and str(x).strip())
    return langs or None


def _warc_output_path(value: Any) -> str:
    """``BITEXT_WARC_OUTPUT``: empty (off) or a path ending in ``.warc.gz`` or ``.warc``."""
    path = str(value or "").strip()
    if path and not path.endswith((".warc.gz", ".warc")):
        raise ValueError(f"a WARC output path ends in .warc.gz (or .warc, uncompressed), got {path!r}")
    return path




@dataclass(frozen=True)
class Setting:
    """One ``BITEXT_*`` setting as documented: what :func:`setting` declared, plus its field."""

    name: str
    field: str
    type: str
    default: Any
    meaning: str
    group: str
    shown_type: str
    shown_default: str
    low: float | None
    high: float | None
    low_open: bool
    parse: Callable[[Any], Any] | None

    def check(self, value: Any) -> None:
        """Raise ValueError when ``value`` is outside the declared range."""
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            raise ValueError(f"{self.name} must be {self.range_text()}, got {value}")
        if self.high is not None and value > self.high:
            raise ValueError(f"{self.name} must be {self.range_text()}, got {value}")

    def range_text(self) -> str:
        """The accepted values in words: ``between 0 and 1``, ``>= 0``, ``in (0, 1]``."""
        if self.low is not None and self.high is not None:
            if self.low_open:
                return f"in ({_num(self.low)}, {_num(self.high)}]"
            return f"between {_num(self.low)} and {_num(self.high)}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {_num(self.low)}"
        if self.high is not None:
            return f"<= {_num(self.high)}"
        return ""


def _spill_dir(value: Any) -> str:
    """``BITEXT_SPILL_DIR``: empty (the system's temporary directory) or a writable directory,
    checked when the crawl starts rather than when its first page's content is written."""
    path = str(value or "").strip()
    if path and not (os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)):
        raise ValueError(f"{path!r} is not a directory this process can write to")
    return path


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def setting(
    default: Any,
    meaning: str,
    *,
    group: str,
    shown_type: str | None = None,
    shown_default: str | None = None,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    parse: Callable[[Any], Any] | None = None,
) -> Any:
    """Declare a :class:`BitextConfig` field as a setting.

    ``meaning`` is the reference text (Markdown); ``low``/``high`` bound accepted values
    (``low_open``: the bound itself is not accepted); ``parse`` turns a raw setting value into the
    field's value when the type alone does not say how; ``shown_type``/``shown_default`` replace
    what the reference shows for the type and the default.
    """
    if group not in GROUPS:
        raise ValueError(f"unknown settings group {group!r}")
    meta = {"meaning": meaning, "group": group, "shown_type": shown_type, "shown_default": shown_default,
            "low": low, "high": high, "low_open": low_open, "parse": parse}
    return dataclasses.field(default=default, metadata={"bitext": meta})


_CRAWL = "Crawl and storage"
_LANG = "Language identification"
_PAGE = "Size and structure filters"
_CONTENT = "Content filter"
_DICT = "Dictionary filter"
_EVIDENCE = "Site-level evidence and decision"
_FOCUS = "Focused crawl"
_PERF = "Performance"


@dataclass(frozen=True)
class BitextConfig:
    """Every setting the bitext components read (reference: docs/settings.md)."""

    enabled: bool = setting(
        True, "Everything bitext adds to a crawl: the page middleware, the matching stages, the "
        "store and the `bitext:` line. Off, the spider crawls the same pages and nothing is "
        "stored: a plain crawl, the baseline of the overhead benchmarks.", group=_CRAWL)
    langs: frozenset[str] | None = setting(
        None, "Languages of interest, comma-separated (`en,fr`); regional tags fold to their base "
        "language. Pages in other languages are stored but never paired. Also `-a langs=`.",
        group=_CRAWL, shown_type="languages", shown_default="unset (every language)", parse=parse_langs)
    db_url: str = setting(
        "sqlite:///bitext.db", "Database of the crawl: any SQLAlchemy URL (`postgresql+psycopg://...` "
        "for several nodes, docs/deploy.md). A relative SQLite path is relative to the working "
        "directory.", group=_CRAWL, shown_type="SQLAlchemy URL")
    max_pages_per_site: int = setting(
        0, "HTML pages taken per site (0: no cap); pages stored by an earlier run of a resumed "
        "crawl count. With a cap the progress line shows an ETA.", group=_CRAWL, low=0)
    # Link traps (bitext_spider/crawl/link_traps.py, docs/crawl_limits.md).
    trap_min_pages: int = setting(
        50, "A URL pattern (the path with digits generalized, no query) becomes a link trap when, after "
        "this many of its pages, fewer than `BITEXT_TRAP_MIN_YIELD` of its last this-many pages had new "
        "text or new links; its URLs are then no longer fetched (0: no yield check).", group=_CRAWL, low=0)
    trap_min_yield: float = setting(
        0.1, "Share of a URL pattern's recent pages that must bring new text or new links for it not to "
        "be a link trap.", group=_CRAWL, low=0, high=1)
    trap_max_repeats: int = setting(
        2, "URLs whose path repeats a segment or group of segments more times in a row than this "
        "(`/a/b/a/b/a/b/`) are not fetched (0: no limit).", group=_CRAWL, low=0)
    site_time_limit: float = setting(
        0.0, "Seconds a site is crawled, from its first request (0: no limit); then its remaining URLs "
        "are dropped and its pages matched, as Bitextor's `crawlTimeLimit`.", group=_CRAWL, low=0)
    # WARC archives (bitext_spider/warc/, docs/warc.md).
    warc_output: str = setting(
        "", "Archive every response the crawl downloads (redirects, errors, robots.txt, feeds and "
        "non-HTML files too), with its request, as WARC: `PATH.warc.gz` writes `PATH-00000.warc.gz`, "
        "`PATH-00001.warc.gz`, ... (`.warc`: uncompressed); `bitext mine-warc` reads them back.",
        group=_CRAWL, shown_type="path", shown_default="unset", parse=_warc_output_path)
    warc_max_bytes: int = setting(
        1_000_000_000, "A WARC output file is closed once it holds this many bytes (as written, "
        "compressed); the next response opens the next file.", group=_CRAWL, low=1)
    warc_keep_truncated: bool = setting(
        False, "`bitext mine-warc`: mine the pages of truncated records (`WARC-Truncated`, such as "
        "Common Crawl's payloads cut at 1 MiB) as they are; off, they are skipped.", group=_CRAWL)
    # Size filter (Tomás et al., section 4): largest relative difference allowed.
    size_file_tolerance: float = setting(
        0.30, "Largest relative difference of file sizes (in bytes or in characters, the closer) "
        "of a candidate pair.", group=_PAGE, low=0, high=1)
    size_tags_tolerance: float = setting(
        0.20, "Largest relative difference of tag counts of a candidate pair.", group=_PAGE, low=0, high=1)
    size_paragraphs_tolerance: float = setting(
        0.40, "Largest relative difference of paragraph counts of a candidate pair.",
        group=_PAGE, low=0, high=1)
    # Structure filter: the edit-distance threshold is this fraction of the longer tag sequence.
    structure_max_ratio: float = setting(
        0.30, "Edit-distance threshold of the structure filter, as a fraction of the longer tag "
        "sequence.", group=_PAGE, low=0, high=1, low_open=True)
    # ... and the aligned text chunks' lengths must correlate at least this much (STRAND's r).
    structure_min_correlation: float = setting(
        0.50, "Smallest correlation of the lengths of aligned text chunks.", group=_PAGE)
    # An earlier page is only compared under the distance that brings a new page within this
    # margin of the similarity of its best candidate so far in the new page's language
    # (matchers.structure.best_structure), and a new page keeps only candidates within it of its own best;
    # 1 compares every size-passing pair under the full threshold.
    structure_best_margin: float = setting(
        0.05, "Compare an earlier page only within this margin of the new page's best structure "
        "similarity so far in its language, and keep a new page's candidates only within this "
        "margin of its best (1: off; docs/design.md).", group=_PAGE, low=0, high=1)
    # At 10,000 pages the thread is as fast as the process and uses less memory; on a site of
    # 100,000 pages the process was faster (pipelines.structure_filter).
    structure_worker: bool = setting(
        False, "Run the structure filter in a worker process of its own (off: in a thread of the "
        "crawl process; docs/benchmarks.md (c) and (j) compare the two).", group=_PERF)
    max_tag_tokens: int = setting(
        30000, "Pages with a longer tag sequence are stored but not compared.", group=_PAGE)
    # Candidates kept per page and other language, best first (0 = all): a page pairs with one
    # page per language, so the long tail of a templated site only costs storage and time.
    max_candidates_per_lang: int = setting(
        5, "Candidates kept per page and other language, best first (0: all).", group=_PAGE)
    # Content filter (Tomás et al., section 2.3): sentence alignment scored by an IBM-1 model
    # trained on the fly.  A candidate passes when at least ``content_min_share`` of its
    # alignment's beads have a translation probability above ``content_sentence_threshold``.
    content_enabled: bool = setting(
        True, "Content filter (sentence alignment under a translation model trained during the "
        "crawl) on or off.", group=_CONTENT)
    # Site-level evidence (URL pairing keys, links, images, fingerprints, near duplicates; the
    # stages pipelines.evidence.EvidenceStage marks).  With it and the content filter both off
    # there is nothing for the decision at close to weigh, and the candidates are resolved
    # one-to-one on the page filters' scores alone: the WebMining pipeline.
    evidence_enabled: bool = setting(
        True, "Site-level evidence on or off: the URL-key, link, image, fingerprint and "
        "near-duplicate stages. With this and `BITEXT_CONTENT_ENABLED` both off the decision at "
        "close is off too and candidates are resolved on the page filters' scores alone.",
        group=_EVIDENCE)
    content_sentence_threshold: float = setting(
        0.5, "An aligned sentence pair counts as translated above this probability.",
        group=_CONTENT, low=0, high=1)
    content_min_share: float = setting(
        0.30, "Share of translated sentence pairs a candidate that passed the structure filter "
        "needs (scaled by the maturity of the language pair's model).", group=_CONTENT, low=0, high=1)
    # The model counts as trained for a language pair after this many aligned sentence pairs;
    # until then only candidates that passed the structure filter can be accepted (section 2.3:
    # "setting very restricted thresholds in previous filters, until ... a good estimation").
    content_mature_sentences: int = setting(
        300, "Sentence pairs a language pair's model must have seen before content may pair pages "
        "alone.", group=_CONTENT)
    # Pages with fewer main-content sentences give no content evidence either way (a title alone
    # matches any title); a pair found on content alone needs this many well-aligned sentences.
    content_min_sentences: int = setting(
        3, "Pages with fewer main-content sentences give no content evidence.", group=_CONTENT)
    # ... and with this on, such a page is not paired at all: a pair without main content (site
    # maps, link listings) adds nothing to a corpus, and structure alone pairs them by template.
    content_required: bool = setting(
        True, "Pages without content evidence (site maps, link listings) are not paired.",
        group=_CONTENT)
    content_rescue_min_sentences: int = setting(
        5, "Well-aligned sentences a pair found on content alone needs.", group=_CONTENT)
    # Once trained, up to this many pages per other language that failed the size/structure
    # filters (closest translated bag of words first, then closest main-content length) are
    # checked on content alone, which must then reach ``content_rescue_min_share``.  One: on the
    # W3C site, its opaque variant and the newspaper editions (with and without a dictionary),
    # none of about 1,900 checks of a second or third page found a pair, and they were half of
    # the close sweep's alignments (docs/benchmarks.md (h)).
    content_rescue_candidates: int = setting(
        1, "Pages per other language checked on content alone at close (closest translated bag of "
        "words first, then closest main-content length) for pages the earlier filters found no "
        "candidate for (0: off).", group=_CONTENT)
    # ... at close, with the final models (the close sweep), and with this on also as each page
    # arrives.  Off by default: at arrival a page's translation has often not been fetched yet,
    # so most of those checks align unrelated pages (on a generated 3,183-page site 4,600 checks
    # found 2 pages, which the close sweep finds as well; docs/benchmarks.md (c)).
    # A page that no filter gave a candidate in any language is searched at arrival regardless:
    # its template is its own (a newspaper edition's), so only content can pair it.
    content_rescue_at_arrival: bool = setting(
        False, "Also run that content-only search as each page arrives (a page with no candidate "
        "in any language is searched at arrival regardless, for mutual bests only; docs/design.md).",
        group=_CONTENT)
    # The share with which content alone is accepted by the decision (0.5 C >= 0.4), so weak
    # evidence cannot carry a pair only content found (matchers.content.content_filter).
    content_rescue_min_share: float = setting(
        0.80, "Share of translated sentence pairs a pair found on content alone needs (a mutual "
        "best of the translated bags of words needs 0.40); a candidate failing both dictionary "
        "scores is kept when a trained model aligns this share of it.", group=_CONTENT, low=0, high=1)
    content_rescue_max_length_diff: float = setting(
        0.40, "Largest relative difference of main-content lengths for a content-only check.",
        group=_CONTENT)
    # PCB (section 3.2.2) compares articles published "in relatively close time intervals" and
    # groups them by month; pages whose publication days are both known are compared on content
    # alone only within this many days (matchers.page.publication_date).
    content_date_window: int = setting(
        31, "Days apart beyond which two pages that both give a publication date are not compared "
        "on content alone (0: no date blocking).", group=_CONTENT)
    # Aligned pairs whose share reaches this train the model (one pair per page and language).
    content_train_min_share: float = setting(
        0.50, "An accepted pair trains the translation model only above this share.",
        group=_CONTENT, low=0, high=1)
    content_model_save_interval: float = setting(
        30.0, "Seconds between saves of each site's training of a translation model (and at "
        "close); a resumed site starts from it.", group=_CONTENT)
    # Fold this crawl's sites' training into the stored models at close (bitext schedule turns it
    # off on its nodes and folds once every job has ended; bitext_spider.store.model_registry).
    content_model_fold: bool = setting(
        True, "At close, fold the sites' training into the stored per-language-pair models that "
        "later crawls start from (`bitext schedule` sets it off on its nodes and folds when all "
        "jobs have ended; `bitext db fold` does it by hand).", group=_CONTENT)
    # Paragraph text on at least this many pages (and this share of the site) is boilerplate.
    boilerplate_min_pages: int = setting(
        3, "A paragraph on at least this many pages (and `BITEXT_BOILERPLATE_MIN_SHARE` of a "
        "language's pages) is boilerplate.", group=_CONTENT)
    boilerplate_min_share: float = setting(
        0.20, "Share of a language's pages a paragraph must be on to be boilerplate.",
        group=_CONTENT, low=0, high=1)
    # Dictionary filter (Tsvetkov & Wintner, section 3.2.2), on when a dictionary file is named.
    dictionary: str = setting(
        "", "Bitextor-format dictionary (an `l1<TAB>l2` header, then word pairs) for the PCB "
        "filter; the filter is on when it is set.", group=_DICT, shown_type="path", shown_default="unset")
    dictionary_threshold_1: float = setting(
        0.30, "PCB threshold for the dictionary's first language.", group=_DICT)
    dictionary_threshold_2: float = setting(
        0.30, "PCB threshold for the dictionary's second language.", group=_DICT)
    dictionary_drop_ambiguous: bool = setting(
        True, "At close, drop a page with more than one accepted counterpart, with all its "
        "candidates (PCB's policy; only with the content filter off: with it on, the decision and "
        "the one-to-one resolution choose).", group=_DICT)
    # URL pairing keys (Kit & Ng): a key needs this share of the site's URLs.
    url_key_share: float = setting(
        0.10, "Share of the site's URLs a URL pairing key needs.", group=_EVIDENCE)
    # Unsupervised structure thresholds (Jangeldin & Assylbekov, Algorithm 1), per site and
    # language pair once it has this many candidates.
    threshold_step: float = setting(
        0.01, "Step of the unsupervised structure threshold search (Algorithm 1).", group=_EVIDENCE)
    threshold_delta: float = setting(
        0.01, "Smallest relative growth that moves the unsupervised structure threshold on.",
        group=_EVIDENCE)
    threshold_min_pairs: int = setting(
        100, "Candidates of a language pair on a site before the unsupervised threshold replaces "
        "the fixed structure threshold at close.", group=_EVIDENCE)
    lang_min_confidence: float = setting(
        0.40, "Below this confidence a page's language is `und`.", group=_LANG)
    lang_min_words: int = setting(
        5, "Pages whose text (less menus, page chrome and code) has fewer words with letters get the "
        "language `und` (numbers do not count: a label and a number is no language).", group=_LANG)
    # Characters of a page's text (from its start) that fastText reads.  Its cost is linear in
    # them, about a third of a page's parse at 1,500; but fewer leave short or unaccented pages
    # under BITEXT_LANG_MIN_CONFIDENCE (on the W3C pages: 4 at 500, 1 at 800, none at 1,000-2,000;
    # docs/evaluation.md, docs/benchmarks.md (c)).
    lang_max_chars: int = setting(
        MAX_CHARS, "Characters of a page's text that fastText reads: its text blocks in document order "
        "less code, menus and page chrome (fewer: faster, but short pages fall under the confidence).",
        group=_LANG, low=1)
    logstats_interval: float = setting(
        30.0, "Seconds between `bitext:` progress lines (0: none).", group=_CRAWL)
    # Python's GIL switch interval while crawling (seconds; 0 leaves Python's 5 ms): the reactor
    # thread is CPU-bound and the structure/writer threads hop in and out of nogil code, and at
    # 5 ms every hop forces the reactor to hand the GIL over (docs/benchmarks.md).
    gil_switch_interval: float = setting(
        0.05, "Python's GIL switch interval in seconds during a crawl with matching on (0: "
        "Python's default).", group=_PERF)
    # Net allocations between two young garbage collections in the crawl process (Python's is
    # 700): the crawl keeps a large heap that every older collection walks, and items in flight
    # outlive a few hundred allocations (bitext_spider.garbage_collection).
    gc_threshold: int = setting(
        50_000, "Net allocations between two young-generation garbage collections in the crawl "
        "process while matching is on; the objects that exist at its start are left out of the "
        "collector's walks until it ends (0: Python's own settings).", group=_PERF, low=0)
    # glibc's malloc arenas for the crawl process's threads (bitext_spider.glibc_malloc).
    malloc_arenas: int = setting(
        2, "At most this many glibc malloc arenas for the crawl process's threads while matching is on, "
        "as MALLOC_ARENA_MAX does: memory one thread frees is reused by the others (0: glibc's own "
        "limit, eight per core; no effect with another C library).", group=_PERF, low=0)
    malloc_trim: bool = setting(
        True, "Give the free pages of glibc's heaps back to the system after each of the paced "
        "collector's collections (BITEXT_GC_THRESHOLD above 0; no effect with another C library).",
        group=_PERF)
    # Worker processes that parse pages (decode, linearize, language, links, main content) off
    # the reactor's GIL (pipelines.page_parse); 0 parses in the crawl process.  One keeps the
    # pages in arrival order; more may reorder them, as concurrent downloads already do.
    parse_workers: int = setting(
        1, "Worker processes that parse pages (decode, tag sequence, language, the links the "
        "spider follows, main content) off the crawl process's GIL (0: in the crawl process).",
        group=_PERF, low=0)
    # Seconds a worker may spend on one page (0: no limit).  A page that takes longer (a parser
    # stuck on pathological markup) is dropped with a message and the worker is replaced.
    parse_timeout: float = setting(
        60.0, "Seconds a page may take in a parse worker, from when it is sent (0: no limit); a "
        "page over it is dropped with a message (its links are not followed) and the worker "
        "replaced.", group=_PERF, low=0)
    # A site keeps every page's main content for the content filter; the older pages' goes to a
    # temporary file so that memory stops growing with it (matchers.site.content_shelf).
    content_in_memory: int = setting(
        500, "Pages of each language of a site whose main content is kept in memory; the older "
        "pages' is kept in a temporary file in BITEXT_SPILL_DIR and read back when compared (0: "
        "every page's in memory).", group=_PERF, low=0)
    spill_dir: str = setting(
        "", "Directory of the temporary files that hold the older pages' main content (empty: "
        "the system's temporary directory, TMPDIR).", group=_PERF, shown_type="path",
        shown_default="unset", parse=_spill_dir)
    writer_batch: int = setting(50, "Pages committed to the database in one batch.", group=_PERF)
    writer_backlog: int = setting(
        2000, "Pages waiting for the database before the crawl waits too.", group=_PERF)
    writer_interval: float = setting(
        0.5, "Seconds without a new page after which the pages waiting are committed (a batch "
        "also commits at BITEXT_WRITER_BATCH pages).", group=_PERF)
    provisional_pairs: bool = setting(
        True, "Send pairs accepted as pages arrive through the item flow (`status` `provisional`); "
        "the final pairs are sent when the spider goes idle either way.", group=_CRAWL)
    # Focused crawling (Papavassiliou et al., ILSP-FC, sections 3.5-3.6; docs/focused_crawl.md).
    domain: str = setting(
        "", "Domain definition of a focused crawl: a file of ILSP-FC's `WEIGHT:TERM=SUBDOMAIN[>LANG]` "
        "lines (also `-a domain=FILE`). With it each page's relevance (p, m) is scored and stored, "
        "only relevant pages are paired, and each site's links are followed best first.",
        group=_FOCUS, shown_type="path", shown_default="unset")
    # t1 and t2 of section 3.5; p is in the domain file's weight units (a term of weight 100 in the
    # title alone gives 1,000, once in the main text 100).
    topic_min_score: float = setting(
        300.0, "A page is relevant when its score p (term weight x location weight, summed over the "
        "occurrences in title, metadata, keywords and main text) reaches this ...", group=_FOCUS, low=0)
    topic_min_terms: int = setting(
        3, "... and its main content holds at least this many distinct domain terms (m).", group=_FOCUS, low=0)
    # c of section 3.6: "a high positive value" that puts a relevant page's translations first.
    topic_translation_bonus: float = setting(
        1000.0, "Added to the score of a relevant page's link that looks like a link to its translation "
        "(hreflang, a language switcher, the same URL with another language code).", group=_FOCUS, low=0)

    @classmethod
    def settings(cls) -> tuple[Setting, ...]:
        """Every setting, in declaration order."""
        return _declared(cls)

    @classmethod
    def setting_names(cls) -> Mapping[str, str]:
        """Field name -> setting name."""
        return {s.field: s.name for s in cls.settings()}

    @classmethod
    def from_settings(cls, settings: BaseSettings | Mapping[str, Any]) -> BitextConfig:
        # Imported here, like ParseOptions below: the CLI reads defaults from this module.
        from scrapy.settings import BaseSettings

        if not isinstance(settings, BaseSettings):
            settings = BaseSettings(dict(settings))
        kwargs: dict[str, Any] = {}
        for s in cls.settings():
            if s.name not in settings or settings.get(s.name) is None:
                continue
            try:
                kwargs[s.field] = _READERS[s.type](settings, s) if s.parse is None else s.parse(settings.get(s.name))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"setting {s.name}={settings.get(s.name)!r} is not valid: {exc}") from exc
        cfg = cls(**kwargs)
        cfg.validate()
        return cfg

    @classmethod
    def from_crawler(cls, crawler: Any) -> BitextConfig:
        return cls.from_settings(crawler.settings)

    def validate(self) -> None:
        for s in self.settings():
            s.check(getattr(self, s.field))

    def parse_options(self) -> ParseOptions:
        """What the page-only steps read (matchers.page.page_parse), small enough for a worker process."""
        # Imported here: the CLI reads defaults from this module and should not load numba.
        from matchers.page.page_parse import ParseOptions

        return ParseOptions(
            max_tag_tokens=self.max_tag_tokens,
            lang_min_words=self.lang_min_words,
            lang_max_chars=self.lang_max_chars,
            lang_min_confidence=self.lang_min_confidence,
            langs=self.langs,
            main_content=self.content_enabled or bool(self.dictionary),
            evidence=self.evidence_enabled,
            ignored_extensions=scrapy_ignored_extensions(),
        )

    def wants(self, lang: str | None) -> bool:
        """Is ``lang`` one of the languages of interest?"""
        if not lang or lang == "und":
            return False
        return self.langs is None or primary_subtag(lang) in self.langs


_READERS: dict[str, Callable[[BaseSettings, Setting], Any]] = {
    "bool": lambda settings, s: settings.getbool(s.name),
    "int": lambda settings, s: settings.getint(s.name),
    "float": lambda settings, s: settings.getfloat(s.name),
    "str": lambda settings, s: str(settings.get(s.name)),
}


@functools.cache
def _declared(cls: type) -> tuple[Setting, ...]:
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata.get("bitext")
        if meta is None:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with setting()")
        type_ = str(f.type)
        if meta["parse"] is None and type_ not in _READERS:
            raise TypeError(f"{cls.__name__}.{f.name}: type {type_} needs parse=")
        out.append(Setting(
            name=PREFIX + f.name.upper(),
            field=f.name,
            type=type_,
            default=f.default,
            meaning=meta["meaning"],
            group=meta["group"],
            shown_type=meta["shown_type"] or type_,
            shown_default=meta["shown_default"] if meta["shown_default"] is not None else str(f.default),
            low=meta["low"],
            high=meta["high"],
            low_open=meta["low_open"],
            parse=meta["parse"],
        ))
    return tuple(out)


def default(name: str) -> Any:
    """The default of the setting ``name`` (``"BITEXT_DB_URL"``), for code that needs it outside a crawl."""
    for s in BitextConfig.settings():
        if s.name == name:
            return s.default
    raise KeyError(name)


@functools.lru_cache(maxsize=1)
def scrapy_ignored_extensions() -> tuple[str, ...]:
    """What Scrapy's LinkExtractor skips by default: extensions of files that are not pages.

    The crawl process passes the list to the page-parse worker (``ParseOptions.ignored_extensions``),
    which then never imports Scrapy (half a second of its start).
    """
    from scrapy.linkextractors import IGNORED_EXTENSIONS

    return tuple(IGNORED_EXTENSIONS)
