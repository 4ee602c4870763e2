"""Main-content extraction: a page's paragraphs, typed and marked as content or boilerplate.

Papavassiliou et al., *ILSP-FC*, section 3.3 ("Cleaner"): boilerplate ("navigation headers,
advertisements, disclaimers") is separated from content, text is segmented in paragraphs on block
tags, and structural information (*title*, *heading*, *list item*) is kept; section 3.7
("Exporter") gives the paragraph attributes we mirror (``crawlinfo="boilerplate"``, ``type`` in
title / heading / listitem).  Where ILSP-FC used a modified Boilerpipe we use jusText (Pomikálek's
stopword-density and link-density classifier with context revision), a maintained library built
for making text corpora from the web.

``justext.justext`` is run in its stages (``justext.core``: parse, preprocess, make paragraphs,
classify, revise) so that the parameters can be chosen once the text is known and a page without
a long paragraph can be rescued.  The paragraphs are made by ``matchers.page.text_blocks`` (the
same paragraphs as jusText's SAX handler, from a walk of the tree, each text computed once).
Per-page choices:

* the stoplist is jusText's for the page language when it has one; otherwise (Chinese, Japanese,
  Thai...) jusText runs in its language-independent mode, an empty stoplist with
  ``stopwords_low = stopwords_high = 0`` (what ``python -m justext -s None`` does), which leaves
  the decision to length and link density;
* in Chinese, Japanese and Korean a character carries about as much text as three Latin ones
  (the weight of ``matchers.structure.size_ratio``), so jusText's length thresholds (70 and 200
  characters) and heading distance are divided by three there; otherwise a Chinese article's
  sentences, mostly under 70 characters, would all be "short" and could be dropped with the
  navigation around them;
* a page on which jusText finds no paragraph good (none long enough) is classified again with
  shorter length thresholds (``_rescue``), so a page of short paragraphs is not all boilerplate;
* whitespace between two inline elements is kept: jusText drops whitespace-only text nodes and
  would glue "<a>read</a> <b>more</b>" into "readmore";
* ``<nav>`` and ``<footer>`` are HTML5's own words for boilerplate: they become block boundaries
  (jusText does not split on them, so a bare footer line would merge into the paragraph before
  it) and their paragraphs are boilerplate whatever jusText thinks of their text; inline
  ``<svg>`` (icon labels, tooltips) is dropped.

:class:`RepeatedBlocks` adds what no single page shows: the same footer or sidebar text on page
after page of a site is boilerplate too (section 3.8's de-duplicator also works on paragraph
hashes, there to drop near-duplicate documents).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import justext
import justext.core

from matchers.page.lang_codes import primary_subtag
from matchers.page.text_blocks import make_paragraphs

TITLE = "title"
HEADING = "heading"
LISTITEM = "listitem"
TEXT = "text"

# jusText's defaults (justext.core), restated because the dense-script ones derive from them
# (all but the link density).
LENGTH_LOW = 70
LENGTH_HIGH = 200
STOPWORDS_LOW = 0.30
STOPWORDS_HIGH = 0.32
# jusText's default is 0.2.  Articles link words and whole sentences of their own text, and a
# translation keeps those links; at 0.2 such paragraphs (and, by the context revision, their
# neighbours) were dropped from one page of a pair and not from its translation made with another
# template.  Navigation and link lists are all link (density near 1) and still go.
MAX_LINK_DENSITY = 0.5
MAX_HEADING_DISTANCE = 200
# A CJK character counts three Latin ones, as in matchers.structure.size_ratio.DENSE_WEIGHT.
DENSE_SCALE = 3
# Primary language subtags written in a dense (CJK) script.
DENSE_LANGS = frozenset({"zh", "ja", "ko", "yue", "wuu", "gan", "hak", "lzh"})
# With no language given, a page whose text is this share CJK is dense (Japanese mixes in kana,
# Latin names and digits; a Latin page with a "中文 | 日本語" menu is far below it).
DENSE_SHARE = 0.3
# Parsing is linear, but a runaway page (a data dump, a log) is not worth more than half a second;
# the part after this many characters is not read.
MAX_HTML_CHARS = 1_000_000
# jusText's context revision rescans a run of short paragraphs for each of its members, quadratic
# in the run: 2,000 one-word table cells take 0.3 s, 5,000 take 3 s.  Paragraphs after this many
# (far beyond an article page's few hundred) are left out.
MAX_PARAGRAPHS = 2000

# Elements that HTML5 defines as navigation or page/section footer.
_BOILERPLATE_TAGS = ("nav", "footer")
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# C0 controls (except tab, LF, CR), DEL and lone surrogates: lxml refuses them in a str, and
# binary garbage decoded as text is full of them.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]+")
_DIGITS = re.compile(r"\d+")
_DENSE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")

# ISO 639-1 (or 639-3 where there is no 639-1 code, as fastText's lid.176 emits) -> jusText's
# stoplist name.
STOPLISTS: dict[str, str] = {
    "af": "Afrikaans", "sq": "Albanian", "ar": "Arabic", "an": "Aragonese", "hy": "Armenian",
    "rup": "Aromanian", "ast": "Asturian", "az": "Azerbaijani", "eu": "Basque", "be": "Belarusian",
    "be-tarask": "Belarusian_Taraskievica", "be-x-old": "Belarusian_Taraskievica", "bn": "Bengali",
    "bpy": "Bishnupriya_Manipuri", "bs": "Bosnian", "br": "Breton", "bg": "Bulgarian", "ca": "Catalan",
    "ceb": "Cebuano", "cv": "Chuvash", "hr": "Croatian", "cs": "Czech", "da": "Danish", "nl": "Dutch",
    "en": "English", "eo": "Esperanto", "et": "Estonian", "fi": "Finnish", "fr": "French",
    "gl": "Galician", "ka": "Georgian", "de": "German", "el": "Greek", "gu": "Gujarati", "ht": "Haitian",
    "he": "Hebrew", "iw": "Hebrew", "hi": "Hindi", "hu": "Hungarian", "is": "Icelandic", "io": "Ido",
    "ig": "Igbo", "id": "Indonesian", "in": "Indonesian", "ga": "Irish", "it": "Italian",
    "jv": "Javanese", "kn": "Kannada", "kk": "Kazakh", "ko": "Korean", "ku": "Kurdish", "ky": "Kyrgyz",
    "la": "Latin", "lv": "Latvian", "lt": "Lithuanian", "lmo": "Lombard", "nds": "Low_Saxon",
    "lb": "Luxembourgish", "mk": "Macedonian", "ms": "Malay", "ml": "Malayalam", "mt": "Maltese",
    "mr": "Marathi", "nap": "Neapolitan", "ne": "Nepali", "new": "Newar", "nb": "Norwegian_Bokmal",
    "no": "Norwegian_Bokmal", "nn": "Norwegian_Nynorsk", "oc": "Occitan", "fa": "Persian",
    "pms": "Piedmontese", "pl": "Polish", "pt": "Portuguese", "qu": "Quechua", "ro": "Romanian",
    "mo": "Romanian", "ru": "Russian", "sgs": "Samogitian", "sr": "Serbian", "sh": "Serbo_Croatian",
    "scn": "Sicilian", "sk": "Slovak", "sl": "Slovenian", "es": "Spanish", "su": "Sundanese",
    "sw": "Swahili", "sv": "Swedish", "tl": "Tagalog", "fil": "Tagalog", "ta": "Tamil", "te": "Telugu",
    "tr": "Turkish", "tk": "Turkmen", "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek",
    "vi": "Vietnamese", "vo": "Volapuk", "wa": "Walloon", "war": "Waray_Waray", "cy": "Welsh",
    "fy": "West_Frisian", "pnb": "Western_Panjabi", "yo": "Yoruba",
}


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One block of page text (ILSP-FC's ``<p>`` element of section 3.7)."""

    text: str  # whitespace-normalized
    kind: str  # "title" | "heading" | "listitem" | "text"
    boilerplate: bool

    def __reduce__(self) -> tuple[Any, tuple[str, str, bool]]:
        # A frozen dataclass with slots unpickles through dataclasses.fields() per object, and
        # the parse workers' answers carry tens of paragraphs per page to the crawl's thread.
        return (Paragraph, (self.text, self.kind, self.boilerplate))


def _base_code(lang: str | None) -> tuple[str, str]:
    """``(full, primary)`` lower-case language subtags: ``"pt_BR"`` -> ``("pt-br", "pt")``."""
    code = (lang or "").strip().lower().replace("_", "-")
    return code, primary_subtag(code)


def stoplist_name(lang: str | None) -> str | None:
    """jusText's stoplist name for a language code (``"pt-br"`` -> ``"Portuguese"``), or None."""
    full, primary = _base_code(lang)
    return STOPLISTS.get(full) or STOPLISTS.get(primary)


def stoplist(lang: str | None) -> frozenset[str]:
    """jusText's stopwords for the language; empty (language-independent mode) when it has none."""
    name = stoplist_name(lang)
    return frozenset() if name is None else _stoplist(name)


# jusText reads and decodes the list's file on every call (about 60 microseconds a page).
@cache
def _stoplist(name: str) -> frozenset[str]:
    try:
        return justext.get_stoplist(name)
    except ValueError:  # a jusText release without this list
        return frozenset()


def _normalize(text: str) -> str:
    # str.split() also splits on no-break, thin and ideographic spaces (ILSP-FC's Normalizer, 3.2).
    return " ".join(text.split())


def _kind(dom_path: str) -> str:
    # The innermost of h1-h6 / li decides: an <h3> inside a list item is a heading.
    for tag in reversed(dom_path.split(".")):
        if tag in _HEADING_TAGS:
            return HEADING
        if tag == "li":
            return LISTITEM
    return TEXT


def _title(dom: Any) -> str:
    for el in dom.iter("title"):
        # An inline SVG's <title> is a tooltip, not the page's.
        if not any(a.tag == "svg" for a in el.iterancestors()):
            return _normalize(el.text_content())
    return ""


def _prepare(dom: Any) -> tuple[Any, list[Any]]:
    """jusText's preprocessing, without inline SVG, ``<nav>``/``<footer>`` made block boundaries.

    Returns the cleaned DOM and the former ``<nav>``/``<footer>`` elements, whose paragraphs are
    boilerplate.
    """
    dom = justext.core.preprocessor(dom)
    for el in list(dom.iter("svg")):
        el.drop_tree()
    marked = list(dom.iter(*_BOILERPLATE_TAGS))
    for el in marked:
        # A paragraph tag for jusText (a block boundary); the list remembers what it was.
        el.tag = "div"
    return dom, marked


def _is_dense(lang: str | None, paragraphs: list[Any]) -> bool:
    if lang:
        return _base_code(lang)[1] in DENSE_LANGS
    text = "".join(p.text for p in paragraphs)
    return bool(text) and len(_DENSE.findall(text)) >= DENSE_SHARE * len(text)


def _rescue(found: list[Any], stopwords: frozenset[str], scale: int, low: float, high: float) -> None:
    """Classify again with shorter length thresholds if jusText found no good paragraph.

    jusText's thresholds are absolute: a paragraph is good only if longer than ``length_high``
    and a near-good or short one survives only next to a good one.  On a page without a single
    long paragraph (a product page, an FAQ, a page of one-sentence paragraphs, common in
    Chinese) everything then ends up boilerplate.  Such a page is judged again with both length
    thresholds at half the short limit (35 characters, 11 in CJK): its sentence-like paragraphs
    become the anchors, navigation still fails on link density.
    """
    if not found or any(p.class_type == "good" for p in found):
        return
    short = LENGTH_LOW // (2 * scale)
    # Only the context-free classes are read from here on: no revision follows.
    justext.core.classify_paragraphs(found, stopwords, short, short, low, high, MAX_LINK_DENSITY)


def _classify(html: str, lang: str | None) -> tuple[str, list[Any]]:
    """``justext.justext`` in its stages, with the parameters chosen once the text is known."""
    dom = justext.core.html_to_dom(html)
    title = _title(dom)
    dom, boilerplate = _prepare(dom)
    # A set holds the elements' proxies, which keeps each element's identity for the walk.
    found = make_paragraphs(dom, set(boilerplate))[:MAX_PARAGRAPHS]
    stopwords = stoplist(lang)
    scale = DENSE_SCALE if _is_dense(lang, found) else 1
    low, high = (0.0, 0.0) if not stopwords else (STOPWORDS_LOW, STOPWORDS_HIGH)
    justext.core.classify_paragraphs(
        found, stopwords, LENGTH_LOW // scale, LENGTH_HIGH // scale, low, high, MAX_LINK_DENSITY
    )
    # The context revision only decides whether the page needs the rescue (the paragraphs keep
    # their context-free class), and a paragraph good on its own stays good through it: a page
    # with one has nothing to revise.  The revision's neighbour search is quadratic in a run of
    # short paragraphs, and long menus are such runs.
    if not any(p.cf_class == "good" for p in found):
        justext.core.revise_paragraph_classification(found, MAX_HEADING_DISTANCE // scale)
        _rescue(found, stopwords, scale, low, high)
    return title, found


def extract_paragraphs(html: str, lang: str | None = None) -> list[Paragraph]:
    """The page's paragraphs in document order, the title first, each typed and classified.

    ``lang`` is the page language (ISO 639-1, regional variants allowed); None when unknown.
    Never raises on bad input: a page that cannot be parsed gives ``[]``.
    """
    if not html or html.isspace():
        return []
    html = _CONTROL.sub(" ", html[:MAX_HTML_CHARS])
    try:
        title, found = _classify(html, lang)
    except Exception:
        # lxml's "Document is empty", encoding or SAX errors, recursion on absurd nesting: one
        # bad page must not stop the crawl, and there is nothing to return.
        return []
    out: list[Paragraph] = []
    if title:
        out.append(Paragraph(title, TITLE, False))
    for p in found:
        text = p.text  # whitespace-normalized
        if not text:
            continue
        # jusText's context-free class, not the revised one: the revision re-labels a paragraph
        # by its neighbours, so the same translated text under two templates (one with a link
        # list beside it, one without) came out as content on one page and boilerplate on the
        # other, and the pair could not be matched on content.  Short paragraphs (headings,
        # captions) are kept; navigation is caught by link density, by the nav/footer rule and
        # across pages by RepeatedBlocks.
        boiler = p.cf_class == "bad" or p.inside
        out.append(Paragraph(text, _kind(p.dom_path), boiler))
    return out


def _fingerprint(text: str) -> str:
    # Digits masked: "Page 3 of 12", "© 2019-2024" and datelines are the same template text.
    return _DIGITS.sub("0", " ".join(text.casefold().split()))


# Title parts are counted apart from paragraph texts: "Contact" as a title part and as a link are
# different evidence.
_TITLE_PART = "title:"
# What separates a page's own title from the site's name: a spaced dash, bar, colon pair or dot.
_TITLE_SEPARATOR = re.compile(r"(\s+[-\u2013\u2014|\u00b7\u2022:]{1,2}\s+)")


def title_parts(title: str) -> list[str]:
    """``title`` cut at its separators: parts at even positions, separators between them."""
    return _TITLE_SEPARATOR.split(title)


def paragraph_keys(paragraphs: Sequence[Paragraph], lang: str | None) -> list[int | None]:
    """Each paragraph's key in :class:`RepeatedBlocks`' counts (None for a title, whose parts are
    counted instead): page-local, so the page's parse makes them."""
    group = _base_code(lang)[1]
    return [_key(group, p.text) if p.kind != TITLE and p.text else None for p in paragraphs]


def _key(group: str, text: str) -> int:
    data = f"{group}\x00{_fingerprint(text)}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


class RepeatedBlocks:
    """Counts, per site, on how many pages each paragraph text occurs.

    Rule: a text is repeated once it has been seen on at least ``min_pages`` pages *and* on at
    least ``min_share`` of the pages observed (of its language, when one is given).  Length plays
    no part: a short "Contact" or "Read more" on every page is template text, and so is a long
    disclaimer or cookie notice; translated sentences, in contrast, occur on one page (and its
    translations), rarely on a fifth of a site.  ``min_pages`` keeps the first pages of a site,
    where every share is high, from marking their own content; ``min_share`` keeps a phrase
    that a few of many pages happen to share ("Introduction", a product name) as content.

    Texts are compared case-folded, whitespace-collapsed and with digit runs masked, so a
    copyright line with a year or "Page 3 of 12" counts as one text; each is stored as an 8-byte
    BLAKE2b hash.  Pass the page language to ``observe``/``is_repeated``/``mark``: a multilingual
    site's English footer is on every English page but only on 1/n of all pages, so the share is
    counted among pages of the same language.  Memory is bounded by ``max_entries`` hashes (about
    100 bytes each in a dict): when it is reached, the texts seen on fewest pages (one, at first)
    are forgotten down to three quarters of it.  Boilerplate is never among those: a text on a
    fifth of the pages is seen dozens of times between two prunings.

    Counting starts with the first page: pages before a footer reaches ``min_pages`` keep it.
    """

    def __init__(self, min_pages: int = 3, min_share: float = 0.2, max_entries: int = 50_000) -> None:
        self.min_pages = max(1, min_pages)
        self.min_share = min_share
        self.max_entries = max(16, max_entries)
        self._pages: dict[str, int] = {}  # pages observed, by language
        self._counts: dict[int, int] = {}  # pages seen on, by hash of (language, text)

    @property
    def pages(self) -> int:
        """Pages observed, all languages."""
        return sum(self._pages.values())

    def __len__(self) -> int:
        return len(self._counts)

    def observe(self, paragraphs: Iterable[Paragraph], lang: str | None = None) -> None:
        """Count one page: each distinct (non-title) text once, and the parts of its title."""
        paragraphs = list(paragraphs)
        self._observe(paragraphs, paragraph_keys(paragraphs, lang), lang)

    def observe_and_mark(
        self, paragraphs: Sequence[Paragraph], lang: str | None = None, keys: Sequence[int | None] | None = None
    ) -> list[Paragraph]:
        """:meth:`observe` then :meth:`mark` of one page, each text hashed once for both (the
        hashing is most of their cost, and every page goes through the two in turn); ``keys``:
        :func:`paragraph_keys` of the page, when its parse made them."""
        if keys is None:
            keys = paragraph_keys(paragraphs, lang)
        self._observe(paragraphs, keys, lang)
        return self._mark(paragraphs, keys, lang)

    def _observe(self, paragraphs: Sequence[Paragraph], text_keys: Sequence[int | None], lang: str | None) -> None:
        group = _base_code(lang)[1]
        self._pages[group] = self._pages.get(group, 0) + 1
        keys = {k for k in text_keys if k is not None}
        for p in paragraphs:
            parts = title_parts(p.text) if p.kind == TITLE else []
            if len(parts) >= 3:
                keys.update(_key(_TITLE_PART + group, part) for part in parts[0::2])
        counts = self._counts
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
        if len(counts) > self.max_entries:
            self._prune()

    def _prune(self) -> None:
        # Forget the rarest texts until a quarter of the room is free (so pruning is not redone
        # on every page); raising the floor only matters if nearly everything repeats.
        floor = 1
        target = self.max_entries * 3 // 4
        while len(self._counts) > target:
            self._counts = {k: n for k, n in self._counts.items() if n > floor}
            floor += 1

    def is_repeated(self, text: str, lang: str | None = None) -> bool:
        """Seen on >= ``min_pages`` pages and on >= ``min_share`` of the pages observed."""
        return self._repeated_key(_key(_base_code(lang)[1], text), lang)

    def _repeated_key(self, key: int | None, lang: str | None) -> bool:
        pages = self._pages.get(_base_code(lang)[1], 0)
        if pages == 0 or key is None:
            return False
        seen = self._counts.get(key, 0)
        return seen >= self.min_pages and seen >= self.min_share * pages

    def mark(self, paragraphs: Iterable[Paragraph], lang: str | None = None) -> list[Paragraph]:
        """The paragraphs, with ``boilerplate=True`` on repeated ones; a title keeps its place but
        loses the parts repeated across the site's titles (the site's name: "Der Bote - ",
        " | The Courier"), which no translation of the page has in the same place."""
        paragraphs = list(paragraphs)
        return self._mark(paragraphs, paragraph_keys(paragraphs, lang), lang)

    def _mark(self, paragraphs: Sequence[Paragraph], keys: Sequence[int | None], lang: str | None) -> list[Paragraph]:
        out = []
        for p, key in zip(paragraphs, keys, strict=True):
            if p.boilerplate:
                out.append(p)
            elif p.kind == TITLE:
                out.append(self._strip_title(p, lang))
            else:
                out.append(replace(p, boilerplate=True) if self._repeated_key(key, lang) else p)
        return out

    def _strip_title(self, p: Paragraph, lang: str | None) -> Paragraph:
        parts = title_parts(p.text)
        if len(parts) < 3:
            return p
        group = _TITLE_PART + _base_code(lang)[1]
        keep = [parts[i] for i in range(0, len(parts), 2) if not self.is_repeated_in(group, parts[i], lang)]
        if not keep or len(keep) * 2 - 1 == len(parts):
            return p
        return replace(p, text=" ".join(keep))

    def is_repeated_in(self, group: str, text: str, lang: str | None) -> bool:
        pages = self._pages.get(_base_code(lang)[1], 0)
        seen = self._counts.get(_key(group, text), 0)
        return pages > 0 and seen >= self.min_pages and seen >= self.min_share * pages
