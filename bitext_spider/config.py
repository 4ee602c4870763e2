"""``BITEXT_*`` settings parsed once into a typed, immutable config.

Tests build a :class:`BitextConfig` directly (``BitextConfig()`` or ``BitextConfig.from_settings``
with a plain dict); components get it from the crawler with ``BitextConfig.from_crawler``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from scrapy.settings import BaseSettings

from matchers.lang_codes import primary_subtag
from matchers.language_id import MAX_CHARS
from matchers.outlinks import scrapy_ignored_extensions
from matchers.page_parse import ParseOptions


def parse_langs(value: Any) -> frozenset[str] | None:
    """``"en,fr"`` / ``["en", "fr"]`` -> ``{"en", "fr"}``; empty or None -> None (every language)."""
    if value is None:
        return None
    items: Iterable[str] = value.split(",") if isinstance(value, str) else value
    langs = frozenset(base_lang(x) for x in items if x and str(x).strip())
    return langs or None


def base_lang(code: str) -> str:
    """Fold a language tag to its base language (``pt-BR`` -> ``pt``, ``zh_Hans`` -> ``zh``)."""
    return primary_subtag(code)


@dataclass(frozen=True)
class BitextConfig:
    """Every setting the bitext components read; the table is in README.md."""

    enabled: bool = True
    langs: frozenset[str] | None = None
    db_url: str = "sqlite:///bitext.db"
    max_pages_per_site: int = 0
    # Size filter (Tomás et al., section 4): largest relative difference allowed.
    size_file_tolerance: float = 0.30
    size_tags_tolerance: float = 0.20
    size_paragraphs_tolerance: float = 0.40
    # Structure filter: the edit-distance threshold is this fraction of the longer tag sequence.
    structure_max_ratio: float = 0.30
    # ... and the aligned text chunks' lengths must correlate at least this much (STRAND's r).
    structure_min_correlation: float = 0.50
    # An earlier page is only compared under the distance that brings a new page within this
    # margin of the similarity of its best candidate so far in the new page's language
    # (matchers.best_structure), and a new page keeps only candidates within it of its own best;
    # 1 compares every size-passing pair under the full threshold.
    structure_best_margin: float = 0.05
    # Run the structure filter in a process of its own (pipelines.structure_filter) rather than
    # in a thread of the crawl process, whose GIL the reactor keeps busy.
    structure_worker: bool = True
    max_tag_tokens: int = 30000
    # Candidates kept per page and other language, best first (0 = all): a page pairs with one
    # page per language, so the long tail of a templated site only costs storage and time.
    max_candidates_per_lang: int = 5
    # Content filter (Tomás et al., section 2.3): sentence alignment scored by an IBM-1 model
    # trained on the fly.  A candidate passes when at least ``content_min_share`` of its
    # alignment's beads have a translation probability above ``content_sentence_threshold``.
    content_enabled: bool = True
    # Site-level evidence (URL pairing keys, links, images, fingerprints, near duplicates; the
    # stages pipelines.evidence.EvidenceStage marks).  With it and the content filter both off
    # there is nothing for the decision at close to weigh, and the candidates are resolved
    # one-to-one on the page filters' scores alone: the WebMining pipeline of issue #2.
    evidence_enabled: bool = True
    content_sentence_threshold: float = 0.5
    content_min_share: float = 0.30
    # The model counts as trained for a language pair after this many aligned sentence pairs;
    # until then only candidates that passed the structure filter can be accepted (section 2.3:
    # "setting very restricted thresholds in previous filters, until ... a good estimation").
    content_mature_sentences: int = 300
    # Pages with fewer main-content sentences give no content evidence either way (a title alone
    # matches any title); a pair found on content alone needs this many well-aligned sentences.
    content_min_sentences: int = 3
    # ... and with this on, such a page is not paired at all: a pair without main content (site
    # maps, link listings) adds nothing to a corpus, and structure alone pairs them by template.
    content_required: bool = True
    content_rescue_min_sentences: int = 5
    # Once trained, up to this many pages per other language that failed the size/structure
    # filters (closest main-content length first) are checked on content alone, which must then
    # reach ``content_rescue_min_share``.
    content_rescue_candidates: int = 3
    # ... at close, with the final models (the close sweep), and with this on also as each page
    # arrives.  Off by default: at arrival a page's translation has often not been fetched yet,
    # so most of those checks align unrelated pages (on a generated 3,183-page site 4,600 checks
    # found 2 pages, which the close sweep finds as well; docs/benchmarks.md (c)).
    content_rescue_at_arrival: bool = False
    content_rescue_min_share: float = 0.60
    content_rescue_max_length_diff: float = 0.40
    # Aligned pairs whose share reaches this train the model (one pair per page and language).
    content_train_min_share: float = 0.50
    content_model_save_interval: float = 30.0
    # Fold this crawl's sites' training into the stored models at close (bitext schedule turns it
    # off on its nodes and folds once every job has ended; bitext_spider.model_registry).
    content_model_fold: bool = True
    # Paragraph text on at least this many pages (and this share of the site) is boilerplate.
    boilerplate_min_pages: int = 3
    boilerplate_min_share: float = 0.20
    # Dictionary filter (Tsvetkov & Wintner, section 3.2.2), on when a dictionary file is named.
    dictionary: str = ""
    dictionary_threshold_1: float = 0.30
    dictionary_threshold_2: float = 0.30
    dictionary_drop_ambiguous: bool = True
    # URL pairing keys (Kit & Ng): a key needs this share of the site's URLs.
    url_key_share: float = 0.10
    # Unsupervised structure thresholds (Jangeldin & Assylbekov, Algorithm 1), per site and
    # language pair once it has this many candidates.
    threshold_step: float = 0.01
    threshold_delta: float = 0.01
    threshold_min_pairs: int = 100
    lang_min_confidence: float = 0.40
    lang_min_words: int = 3
    # Characters of a page's text (from its start) that fastText reads.  Its cost is linear in
    # them, about a third of a page's parse at 1,500; but fewer leave short or unaccented pages
    # under BITEXT_LANG_MIN_CONFIDENCE (on the W3C pages: 4 at 500, 1 at 800, none at 1,000-2,000;
    # docs/benchmarks.md (c), ninth session).
    lang_max_chars: int = MAX_CHARS
    logstats_interval: float = 30.0
    # Python's GIL switch interval while crawling (seconds; 0 leaves Python's 5 ms): the reactor
    # thread is CPU-bound and the structure/writer threads hop in and out of nogil code, and at
    # 5 ms every hop forces the reactor to hand the GIL over (docs/benchmarks.md).
    gil_switch_interval: float = 0.05
    # Worker processes that parse pages (decode, linearize, language, links, main content) off
    # the reactor's GIL (pipelines.page_parse); 0 parses in the crawl process.  One keeps the
    # pages in arrival order; more may reorder them, as concurrent downloads already do.
    parse_workers: int = 1
    # Seconds a worker may spend on one page (0: no limit).  A page that takes longer (a parser
    # stuck on pathological markup) is dropped with a message and the worker is replaced.
    parse_timeout: float = 60.0
    writer_batch: int = 200
    writer_backlog: int = 2000
    writer_interval: float = 0.5
    # Send pairs accepted as pages arrive through the item flow (status "provisional"); the final
    # pairs are sent when the spider goes idle either way (bitext_spider.pair_flow).
    provisional_pairs: bool = True

    _SETTING_NAMES = {
        "enabled": "BITEXT_ENABLED",
        "langs": "BITEXT_LANGS",
        "db_url": "BITEXT_DB_URL",
        "max_pages_per_site": "BITEXT_MAX_PAGES_PER_SITE",
        "size_file_tolerance": "BITEXT_SIZE_FILE_TOLERANCE",
        "size_tags_tolerance": "BITEXT_SIZE_TAGS_TOLERANCE",
        "size_paragraphs_tolerance": "BITEXT_SIZE_PARAGRAPHS_TOLERANCE",
        "structure_max_ratio": "BITEXT_STRUCTURE_MAX_RATIO",
        "structure_min_correlation": "BITEXT_STRUCTURE_MIN_CORRELATION",
        "structure_best_margin": "BITEXT_STRUCTURE_BEST_MARGIN",
        "structure_worker": "BITEXT_STRUCTURE_WORKER",
        "max_tag_tokens": "BITEXT_MAX_TAG_TOKENS",
        "max_candidates_per_lang": "BITEXT_MAX_CANDIDATES_PER_LANG",
        "content_enabled": "BITEXT_CONTENT_ENABLED",
        "evidence_enabled": "BITEXT_EVIDENCE_ENABLED",
        "content_sentence_threshold": "BITEXT_CONTENT_SENTENCE_THRESHOLD",
        "content_min_share": "BITEXT_CONTENT_MIN_SHARE",
        "content_mature_sentences": "BITEXT_CONTENT_MATURE_SENTENCES",
        "content_min_sentences": "BITEXT_CONTENT_MIN_SENTENCES",
        "content_required": "BITEXT_CONTENT_REQUIRED",
        "content_rescue_min_sentences": "BITEXT_CONTENT_RESCUE_MIN_SENTENCES",
        "content_rescue_candidates": "BITEXT_CONTENT_RESCUE_CANDIDATES",
        "content_rescue_at_arrival": "BITEXT_CONTENT_RESCUE_AT_ARRIVAL",
        "content_rescue_min_share": "BITEXT_CONTENT_RESCUE_MIN_SHARE",
        "content_rescue_max_length_diff": "BITEXT_CONTENT_RESCUE_MAX_LENGTH_DIFF",
        "content_train_min_share": "BITEXT_CONTENT_TRAIN_MIN_SHARE",
        "content_model_save_interval": "BITEXT_CONTENT_MODEL_SAVE_INTERVAL",
        "content_model_fold": "BITEXT_CONTENT_MODEL_FOLD",
        "boilerplate_min_pages": "BITEXT_BOILERPLATE_MIN_PAGES",
        "boilerplate_min_share": "BITEXT_BOILERPLATE_MIN_SHARE",
        "dictionary": "BITEXT_DICTIONARY",
        "dictionary_threshold_1": "BITEXT_DICTIONARY_THRESHOLD_1",
        "dictionary_threshold_2": "BITEXT_DICTIONARY_THRESHOLD_2",
        "dictionary_drop_ambiguous": "BITEXT_DICTIONARY_DROP_AMBIGUOUS",
        "url_key_share": "BITEXT_URL_KEY_SHARE",
        "threshold_step": "BITEXT_THRESHOLD_STEP",
        "threshold_delta": "BITEXT_THRESHOLD_DELTA",
        "threshold_min_pairs": "BITEXT_THRESHOLD_MIN_PAIRS",
        "lang_min_confidence": "BITEXT_LANG_MIN_CONFIDENCE",
        "lang_min_words": "BITEXT_LANG_MIN_WORDS",
        "lang_max_chars": "BITEXT_LANG_MAX_CHARS",
        "logstats_interval": "BITEXT_LOGSTATS_INTERVAL",
        "gil_switch_interval": "BITEXT_GIL_SWITCH_INTERVAL",
        "parse_workers": "BITEXT_PARSE_WORKERS",
        "parse_timeout": "BITEXT_PARSE_TIMEOUT",
        "writer_batch": "BITEXT_WRITER_BATCH",
        "writer_backlog": "BITEXT_WRITER_BACKLOG",
        "writer_interval": "BITEXT_WRITER_INTERVAL",
        "provisional_pairs": "BITEXT_PROVISIONAL_PAIRS",
    }

    @classmethod
    def setting_names(cls) -> Mapping[str, str]:
        return dict(cls._SETTING_NAMES)  # type: ignore[arg-type]

    @classmethod
    def from_settings(cls, settings: BaseSettings | Mapping[str, Any]) -> BitextConfig:
        if not isinstance(settings, BaseSettings):
            settings = BaseSettings(dict(settings))
        kwargs: dict[str, Any] = {}
        defaults = cls()
        for f in fields(cls):
            if f.name.startswith("_"):
                continue
            name = cls._SETTING_NAMES[f.name]  # type: ignore[index]
            if name not in settings or settings.get(name) is None:
                continue
            default = getattr(defaults, f.name)
            try:
                if f.name == "langs":
                    kwargs[f.name] = parse_langs(settings.get(name))
                elif isinstance(default, bool):
                    kwargs[f.name] = settings.getbool(name)
                elif isinstance(default, int):
                    kwargs[f.name] = settings.getint(name)
                elif isinstance(default, float):
                    kwargs[f.name] = settings.getfloat(name)
                else:
                    kwargs[f.name] = str(settings.get(name))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"setting {name}={settings.get(name)!r} is not valid: {exc}") from exc
        cfg = cls(**kwargs)
        cfg.validate()
        return cfg

    @classmethod
    def from_crawler(cls, crawler: Any) -> BitextConfig:
        return cls.from_settings(crawler.settings)

    def validate(self) -> None:
        for name in ("size_file_tolerance", "size_tags_tolerance", "size_paragraphs_tolerance"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{self._SETTING_NAMES[name]} must be between 0 and 1, got {v}")  # type: ignore[index]
        if not 0.0 < self.structure_max_ratio <= 1.0:
            raise ValueError(f"BITEXT_STRUCTURE_MAX_RATIO must be in (0, 1], got {self.structure_max_ratio}")
        for name in ("structure_best_margin", "content_sentence_threshold", "content_min_share", "content_rescue_min_share",
                     "content_train_min_share", "boilerplate_min_share"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{self._SETTING_NAMES[name]} must be between 0 and 1, got {v}")  # type: ignore[index]
        if self.max_pages_per_site < 0:
            raise ValueError("BITEXT_MAX_PAGES_PER_SITE must be >= 0 (0 means no cap)")
        if self.parse_workers < 0:
            raise ValueError("BITEXT_PARSE_WORKERS must be >= 0 (0 parses in the crawl process)")
        if self.lang_max_chars < 1:
            raise ValueError("BITEXT_LANG_MAX_CHARS must be >= 1")
        if self.parse_timeout < 0:
            raise ValueError("BITEXT_PARSE_TIMEOUT must be >= 0 (0 means no limit)")

    def parse_options(self) -> ParseOptions:
        """What the page-only steps read (matchers.page_parse), small enough for a worker process."""
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
        return self.langs is None or base_lang(lang) in self.langs
