"""Link evidence that two pages of a site are translations: hreflang, language switchers, mutual links.

Jangeldin & Assylbekov (section 1): "very often websites are already aligned on document level,
i.e. web pages in one language contain links to the translated versions of themselves".
Papavassiliou et al., *ILSP-FC* (section 3.6, Link Extractor), score a link from an L1 page as
pointing to an L2 translation when "L2 is German and the anchor text contains strings like 'de',
'Deutsch'"; STRAND (Resnik, quoted by Tomás et al., *WebMining*, section 5) found bilingual
pages by anchors such as "english" / "anglais" / "français".  This module reads three kinds of
evidence from the links two pages already have (the caller normalizes the URLs):

* hreflang: ``a`` links to ``b`` with an ``hreflang`` naming ``b``'s language, or vice versa -
  the site declares the pair;
* switcher: ``a`` links to ``b`` with an anchor text or URL naming ``b``'s language (a language
  menu entry), or vice versa;
* mutual: ``a`` links to ``b`` and ``b`` to ``a``, with no language named.

Language names.  The table below holds 114 common web languages and 7 regional or script
variants with their English name and their endonym, generated from the Unicode CLDR (release 47,
through ``babel`` 2.18: ``Locale('en').languages[code]`` and ``Locale(code).get_display_name(code)``)
and written out here so no dependency is added; the entries after the CLDR pair are common
spellings CLDR does not give (``简体中文``, ``Bahasa Indonesia``, ``Farsi``, ``हिंदी`` ...).  Anchor texts only count when
the whole anchor is a name or a code (``Français``, ``EN``, ``pt-BR``), or a few of them for the
same language (``Français (FR)``, ``EN | English``), or a name with a filler word (``English
version``, ``En español``): "Read it here" names nothing.  Codes that are also English words
(``it``, ``no``, ``be``, ``my``, ...) count as a whole anchor only in capitals.

URLs.  A code counts only in the places sites put languages: a whole path segment (``/fr/``,
``/pt-br/``), a subdomain label (``fr.example.com``), a ``lang=``/``hl=``/... parameter, a dotted
file-name part (``index.de.html``, Apache's ``index.html.de``), and, except for the word-like
codes, a ``_xx``/``-xx`` suffix of a segment (``about_fr.html``, ``news-es/``).  A few country
codes that are not language codes but are used as language slots (``/jp/``, ``/cn/``, ``/kr/``)
are read as their language.  A code found in a URL may still be something else (``/hr/`` for
human resources); the evidence functions only use it when it equals the linked page's
*identified* language, which such accidents rarely do.

Global menus.  A menu on every page linking to the other language's home page is evidence for
the two home pages only.  With an ``inlink_count(url, lang)`` callable (how many pages of
``lang`` link to ``url``), a link whose target is linked from more than ``max_inlinks`` pages of
the source's language is *site-wide*: it counts only when the target links back to the source
naming the source's language, which the two home pages do and an inner page and the other home
page do not.  The same guard applies to hreflang, which misconfigured sites also emit site-wide.
Without the callable every link counts as page-specific; early in a crawl the counts are still
small, so evidence computed then should be recomputed when the site is finished.

Score.  ``link_score`` combines the three pieces by noisy-OR, ``1 - prod(1 - w)``: hreflang 0.9
(the site states the pair), switcher 0.7 (a menu entry names the language, but menus can point
to a section rather than the page's own translation), mutual 0.3 (pages in two languages link
to each other for other reasons too).  Pieces are not independent (an hreflang link usually is
also a switcher), so the score is a ranking, not a probability.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from urllib.parse import parse_qsl, unquote, urlsplit

from matchers.page.lang_codes import ALIASES, base_language, same_language

LinkTuple = tuple[str, str, str]  # (url, anchor_text, hreflang)
InlinkCount = Callable[[str, str], int]  # (target url, source language) -> pages linking to it

DEFAULT_MAX_INLINKS = 3

# (code, English name, endonym, other common spellings...).  Code, English name and endonym come
# from CLDR 47 (see the module docstring); the rest are additions.
LANGUAGE_NAMES: tuple[tuple[str, ...], ...] = (
    ("en", "English", "English"),
    ("ru", "Russian", "русский"),
    ("es", "Spanish", "español", "castellano"),
    ("es-419", "Spanish (Latin America)", "español (Latinoamérica)"),
    ("de", "German", "Deutsch"),
    ("fr", "French", "français"),
    ("fr-ca", "French (Canada)", "français (Canada)", "Canadian French"),
    ("ja", "Japanese", "日本語"),
    ("pt", "Portuguese", "português"),
    ("pt-br", "Portuguese (Brazil)", "português (Brasil)", "português do Brasil", "Brazilian Portuguese"),
    ("pt-pt", "Portuguese (Portugal)", "português (Portugal)", "European Portuguese"),
    ("tr", "Turkish", "Türkçe"),
    ("it", "Italian", "italiano"),
    ("fa", "Persian", "فارسی", "Farsi"),
    ("nl", "Dutch", "Nederlands"),
    ("pl", "Polish", "polski"),
    ("zh", "Chinese", "中文", "汉语", "漢語"),
    ("zh-hans", "Chinese (Simplified)", "中文 (简体)", "简体中文", "中文简体", "简体", "Simplified Chinese"),
    ("zh-hant", "Chinese (Traditional)", "中文 (繁體)", "繁體中文", "繁体中文", "中文繁體", "繁體",
     "Traditional Chinese"),
    ("vi", "Vietnamese", "Tiếng Việt"),
    ("id", "Indonesian", "Indonesia", "Bahasa Indonesia"),
    ("cs", "Czech", "čeština"),
    ("ko", "Korean", "한국어"),
    ("uk", "Ukrainian", "українська"),
    ("ar", "Arabic", "العربية", "عربي"),
    ("el", "Greek", "Ελληνικά"),
    ("he", "Hebrew", "עברית"),
    ("sv", "Swedish", "svenska"),
    ("hu", "Hungarian", "magyar"),
    ("ro", "Romanian", "română"),
    ("da", "Danish", "dansk"),
    ("sk", "Slovak", "slovenčina"),
    ("fi", "Finnish", "suomi"),
    ("th", "Thai", "ไทย", "ภาษาไทย"),
    ("bg", "Bulgarian", "български"),
    ("sr", "Serbian", "српски"),
    ("sr-latn", "Serbian (Latin)", "srpski (latinica)", "srpski"),
    ("hr", "Croatian", "hrvatski"),
    ("no", "Norwegian", "norsk"),
    ("nb", "Norwegian Bokmål", "norsk bokmål"),
    ("nn", "Norwegian Nynorsk", "norsk nynorsk"),
    ("lt", "Lithuanian", "lietuvių"),
    ("sl", "Slovenian", "slovenščina", "Slovene"),
    ("lv", "Latvian", "latviešu"),
    ("et", "Estonian", "eesti"),
    ("ca", "Catalan", "català"),
    ("hi", "Hindi", "हिन्दी", "हिंदी"),
    ("bn", "Bangla", "বাংলা", "Bengali"),
    ("ms", "Malay", "Melayu", "Bahasa Melayu", "Bahasa Malaysia"),
    ("az", "Azerbaijani", "azərbaycan"),
    ("ka", "Georgian", "ქართული"),
    ("kk", "Kazakh", "қазақ тілі", "қазақша"),
    ("be", "Belarusian", "беларуская"),
    ("hy", "Armenian", "հայերեն"),
    ("sq", "Albanian", "shqip"),
    ("mk", "Macedonian", "македонски"),
    ("bs", "Bosnian", "bosanski"),
    ("is", "Icelandic", "íslenska"),
    ("ga", "Irish", "Gaeilge"),
    ("cy", "Welsh", "Cymraeg"),
    ("eu", "Basque", "euskara"),
    ("gl", "Galician", "galego"),
    ("mt", "Maltese", "Malti"),
    ("lb", "Luxembourgish", "Lëtzebuergesch"),
    ("af", "Afrikaans", "Afrikaans"),
    ("sw", "Swahili", "Kiswahili"),
    ("ta", "Tamil", "தமிழ்"),
    ("te", "Telugu", "తెలుగు"),
    ("mr", "Marathi", "मराठी"),
    ("ur", "Urdu", "اردو"),
    ("gu", "Gujarati", "ગુજરાતી"),
    ("kn", "Kannada", "ಕನ್ನಡ"),
    ("ml", "Malayalam", "മലയാളം"),
    ("pa", "Punjabi", "ਪੰਜਾਬੀ", "Panjabi"),
    ("si", "Sinhala", "සිංහල", "Sinhalese"),
    ("ne", "Nepali", "नेपाली"),
    ("my", "Burmese", "မြန်မာ", "မြန်မာဘာသာ"),
    ("km", "Khmer", "ខ្មែរ", "ភាសាខ្មែរ"),
    ("lo", "Lao", "ລາວ", "ພາສາລາວ"),
    ("mn", "Mongolian", "монгол", "монгол хэл"),
    ("uz", "Uzbek", "o‘zbek", "oʻzbek", "o'zbek", "oʻzbekcha", "o'zbekcha", "ўзбекча"),
    ("ky", "Kyrgyz", "кыргызча"),
    ("tg", "Tajik", "тоҷикӣ"),
    ("tk", "Turkmen", "türkmen dili", "türkmençe"),
    ("ps", "Pashto", "پښتو"),
    ("ku", "Kurdish", "kurdî (kurmancî)", "Kurdî", "Kurmanji"),
    ("ckb", "Central Kurdish", "کوردیی ناوەندی", "کوردی", "Sorani"),
    ("sd", "Sindhi", "سنڌي"),
    ("or", "Odia", "ଓଡ଼ିଆ", "Oriya"),
    ("as", "Assamese", "অসমীয়া"),
    ("am", "Amharic", "አማርኛ"),
    ("so", "Somali", "Soomaali"),
    ("ha", "Hausa", "Hausa"),
    ("yo", "Yoruba", "Èdè Yorùbá"),
    ("ig", "Igbo", "Igbo"),
    ("zu", "Zulu", "isiZulu"),
    ("xh", "Xhosa", "IsiXhosa"),
    ("rw", "Kinyarwanda", "Ikinyarwanda"),
    ("ny", "Nyanja", "Nyanja", "Chichewa"),
    ("sn", "Shona", "chiShona"),
    ("st", "Southern Sotho", "Sesotho"),
    ("mg", "Malagasy", "Malagasy"),
    ("tl", "Filipino", "Filipino", "Tagalog"),
    ("jv", "Javanese", "Jawa"),
    ("su", "Sundanese", "Basa Sunda"),
    ("ceb", "Cebuano", "Cebuano"),
    ("eo", "Esperanto", "Esperanto"),
    ("la", "Latin", "Latina"),
    ("fo", "Faroese", "føroyskt"),
    ("fy", "Western Frisian", "Frysk", "Frisian"),
    ("gd", "Scottish Gaelic", "Gàidhlig"),
    ("oc", "Occitan", "occitan"),
    ("ht", "Haitian Creole", "Kreyòl Ayisyen", "Kreyòl"),
    ("mi", "Māori", "Māori"),
    ("yi", "Yiddish", "ייִדיש"),
    ("bo", "Tibetan", "བོད་སྐད་"),
    ("ug", "Uyghur", "ئۇيغۇرچە"),
    ("tt", "Tatar", "татар", "татарча"),
    ("ba", "Bashkir", "башҡорт теле", "башҡортса"),
    ("dv", "Divehi", "ދިވެހިބަސް", "Dhivehi"),
    ("qu", "Quechua", "Runasimi"),
)

# Country codes sites use as language slots, where they are not themselves language codes.
_COUNTRY_SLOTS: Mapping[str, str] = MappingProxyType(
    {"jp": "ja", "cn": "zh", "kr": "ko", "gr": "el", "cz": "cs", "dk": "da", "se": "sv", "ua": "uk", "vn": "vi"}
)
# Codes that are also common English words: never a suffix in a URL, a whole anchor only in caps.
_WORDLIKE = frozenset({"am", "as", "be", "ha", "he", "hi", "id", "is", "it", "la", "mi", "my", "no", "or", "so"})
# Words around a language name in a switcher anchor: "English version", "En español", "Auf Deutsch".
_FILLERS = frozenset({"in", "en", "auf", "em", "version", "versión", "versão", "versione", "language"})
_LANG_PARAMS = frozenset({"lang", "language", "hl", "lng", "locale", "setlang", "uilang"})
_PAGE_EXTS = frozenset({"html", "htm", "shtml", "xhtml", "php", "asp", "aspx", "jsp", "cfm"})

_TAG_RE = re.compile(r"([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|\d{3}))?")
_SUFFIX_RE = re.compile(r"[_-]([a-z]{2,3}(?:[_-](?:[a-z]{4}|[a-z]{2}|\d{3})){0,2})$")
_SEP_RE = re.compile(r"[|/·•,;:()\[\]{}«»]|\s[-–—]\s")
_BRACKET_SPACE_RE = re.compile(r"\s*([()\[\]])\s*")
_REGION_RE = re.compile(r"[A-Za-z]{2}")


def _clean(text: str) -> str:
    """NFKC, no symbols (flags, arrows) or control characters, single spaces; case kept."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] not in "SC")
    text = _BRACKET_SPACE_RE.sub(r"\1", " ".join(text.split()))
    # Decorations around a menu entry ("» Français", "English.") are not part of the name.
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start])[0] == "P" and text[start] not in "([":
        start += 1
    while end > start and unicodedata.category(text[end - 1])[0] == "P" and text[end - 1] not in ")]":
        end -= 1
    return text[start:end].strip()


def _ascii_fold(key: str) -> str | None:
    """``francais`` for ``français``; None unless folding leaves plain ASCII (Latin scripts)."""
    folded = "".join(ch for ch in unicodedata.normalize("NFKD", key) if not unicodedata.combining(ch))
    return folded if folded.isascii() and folded != key else None


def _build_name_index() -> Mapping[str, str]:
    index: dict[str, str] = {}
    for code, *names in LANGUAGE_NAMES:
        for name in names:
            key = _clean(name).casefold()
            for k in (key, _ascii_fold(key)):
                if k is None:
                    continue
                if index.setdefault(k, code) != code:
                    raise ValueError(f"language name {k!r} names both {index[k]!r} and {code!r}")
    return MappingProxyType(index)


_NAMES = _build_name_index()
_CODES = frozenset(code for code, *_ in LANGUAGE_NAMES if "-" not in code)


def _parse_tag(text: str, country_slot: bool = False) -> str | None:
    """``text`` as a language tag of a known language (``fr``, ``pt-BR``, ``zh-Hant``), normalized."""
    m = _TAG_RE.fullmatch(text.strip().lower().replace("_", "-"))
    if m is None:
        return None
    base, script, region = m.groups()
    if base in ("iw", "fil"):
        base = ALIASES[base]
    elif base not in _CODES:
        if not (country_slot and base in _COUNTRY_SLOTS and not script and not region):
            return None
        base = _COUNTRY_SLOTS[base]
    return "-".join(p for p in (base, script, region) if p)


def _name_or_code(part: str) -> tuple[str | None, bool]:
    """``(code, is_name)`` of one anchor piece: a language name, or a code as the whole piece."""
    key = part.casefold()
    code = _NAMES.get(key) or _NAMES.get(_ascii_fold(key) or "")
    if code:
        return code, True
    words = key.split()
    inner = list(words)
    while inner and inner[0] in _FILLERS:
        inner.pop(0)
    while inner and inner[-1] in _FILLERS:
        inner.pop()
    if inner and len(inner) < len(words):
        key = " ".join(inner)
        code = _NAMES.get(key) or _NAMES.get(_ascii_fold(key) or "")
        if code:
            return code, True
    tag = _parse_tag(part)
    if tag and base_language(tag) in _WORDLIKE and not part.isupper():
        return None, False  # "it", "no", "Hi": words, not codes
    return tag, False


# A site's language menus repeat a few anchor texts on every page, and the link score of every
# candidate reads them again.
@functools.lru_cache(maxsize=4096)
def language_in_anchor(anchor_text: str) -> str | None:
    """The language an anchor text names, as a code, or None."""
    text = _clean(anchor_text)
    if not text:
        return None
    code, _ = _name_or_code(text)
    if code:
        return code
    parts = [p for p in (_clean(x) for x in _SEP_RE.split(text)) if p]
    if len(parts) < 2:
        return None
    found = [(p, *_name_or_code(p)) for p in parts]
    named = [c for _, c, is_name in found if c and is_name]
    if not named:
        return None  # codes alone ("EN | FR") are a menu, not one language
    first = base_language(named[0])
    region = ""
    for part, c, is_name in found:
        if c and base_language(c) == first:
            continue
        if not is_name and _REGION_RE.fullmatch(part):
            region = part.lower()  # "Français (CA)": CA is Canada here, not Catalan
            continue
        return None
    best = max((c for _, c, _ in found if c and base_language(c) == first), key=lambda c: c.count("-"))
    return f"{best}-{region}" if region and "-" not in best else best


def url_languages(url: str) -> list[str]:
    """Language codes in the language slots of ``url``, most telling first, without repeats."""
    parts = urlsplit(url)
    found: list[str] = []
    for key, value in parse_qsl(parts.query):
        if key.lower() in _LANG_PARAMS:
            found.append(_parse_tag(value, country_slot=True) or "")
    segments = [unquote(s) for s in parts.path.split("/") if s]
    whole = [_parse_tag(s, country_slot=True) for s in segments]
    for i, tag in enumerate(whole):
        # /ca/fr/, /ch/de/: of two adjacent slots the second is more often the language and the
        # first a country, so the second goes first; both stay candidates (/fr/ca/ exists too).
        nxt = whole[i + 1] if i + 1 < len(whole) else None
        if tag and nxt:
            found.append(nxt)
        if tag:
            found.append(tag)
    if segments:
        dotted = segments[-1].split(".")
        slots = dotted[1:-1]
        if len(dotted) >= 3 and dotted[-2].lower() in _PAGE_EXTS:
            slots.append(dotted[-1])  # content negotiation: index.html.de
        found.extend(_parse_tag(s) or "" for s in slots)
    for seg, tag in zip(segments, whole, strict=True):
        if tag is None:
            m = _SUFFIX_RE.search(seg.split(".", 1)[0].lower())
            sub = _parse_tag(m.group(1)) if m and m.start() > 0 else None
            if sub and base_language(sub) not in _WORDLIKE:
                found.append(sub)
    labels = (parts.hostname or "").split(".")[:-2]
    found.extend(_parse_tag(label, country_slot=True) or "" for label in labels)
    return list(dict.fromkeys(c for c in found if c))


def language_named(anchor_text: str, url: str) -> str | None:
    """The language a link names: its anchor text first (what the reader is told), else its URL."""
    code = language_in_anchor(anchor_text)
    if code:
        return code
    in_url = url_languages(url)
    return in_url[0] if in_url else None


class PageLinks:
    """One page as the link evidence sees it: URL, identified language, and the ``(anchor text,
    hreflang)`` of its links by target URL.  The decision at close asks about one target per
    candidate, so the links are kept by target rather than as a list to scan.

    A site keeps this for every page it crawls, and menus repeat the same links on every page:
    with a ``pool`` (one dict per site) equal ``(anchor text, hreflang)`` tuples are one object.
    """

    __slots__ = ("url", "lang", "targets")

    def __init__(self, url: str, lang: str, links: Iterable[LinkTuple] = (),
                 pool: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] | None = None) -> None:
        self.url = url
        self.lang = lang
        grouped: dict[str, list[tuple[str, str]]] = {}
        for target, text, hreflang in links:
            grouped.setdefault(target, []).append((text, hreflang))
        targets: dict[str, tuple[tuple[str, str], ...]] = {}
        for target, found in grouped.items():
            value = tuple(found)
            targets[target] = value if pool is None else pool.setdefault(value, value)
        self.targets = targets

    @property
    def links(self) -> list[LinkTuple]:
        """``(url, anchor text, hreflang)`` of every link, grouped by target."""
        return [(target, text, hreflang) for target, found in self.targets.items() for text, hreflang in found]


def _names_language(anchor: str, url: str, lang: str) -> bool:
    # The anchor decides when it names a language; otherwise any language slot of the URL may.
    named = language_in_anchor(anchor)
    if named:
        return same_language(named, lang)
    return any(same_language(c, lang) for c in url_languages(url))


def _hreflang_link(src: PageLinks, dst: PageLinks) -> bool:
    return any(same_language(h, dst.lang) for _, h in src.targets.get(dst.url, ()))


def _switcher_link(src: PageLinks, dst: PageLinks) -> bool:
    return any(_names_language(t, dst.url, dst.lang) for t, _ in src.targets.get(dst.url, ()))


def _directed(
    src: PageLinks,
    dst: PageLinks,
    has_link: Callable[[PageLinks, PageLinks], bool],
    inlink_count: InlinkCount | None,
    max_inlinks: int,
) -> bool:
    if same_language(src.lang, dst.lang) or not has_link(src, dst):
        return False
    if inlink_count is None or inlink_count(dst.url, src.lang) <= max_inlinks:
        return True
    # A site-wide link: only the page the target's own menu points back to is its partner.
    return _hreflang_link(dst, src) or _switcher_link(dst, src)


def hreflang_evidence(
    page_a: PageLinks,
    page_b: PageLinks,
    inlink_count: InlinkCount | None = None,
    max_inlinks: int = DEFAULT_MAX_INLINKS,
) -> bool:
    """``a`` links to ``b`` with an hreflang naming ``b``'s language (base compare), or vice versa."""
    return _directed(page_a, page_b, _hreflang_link, inlink_count, max_inlinks) or _directed(
        page_b, page_a, _hreflang_link, inlink_count, max_inlinks
    )


def switcher_evidence(
    page_a: PageLinks,
    page_b: PageLinks,
    inlink_count: InlinkCount | None = None,
    max_inlinks: int = DEFAULT_MAX_INLINKS,
) -> bool:
    """``a`` links to ``b`` with an anchor or URL naming ``b``'s language, or vice versa."""
    return _directed(page_a, page_b, _switcher_link, inlink_count, max_inlinks) or _directed(
        page_b, page_a, _switcher_link, inlink_count, max_inlinks
    )


def mutual_links(page_a: PageLinks, page_b: PageLinks) -> bool:
    """``a`` links to ``b`` and ``b`` links to ``a``."""
    return page_b.url in page_a.targets and page_a.url in page_b.targets


@dataclass(frozen=True)
class LinkWeights:
    """Noisy-OR weights of the three pieces (see the module docstring for the ordering)."""

    hreflang: float = 0.9
    switcher: float = 0.7
    mutual: float = 0.3


DEFAULT_WEIGHTS = LinkWeights()


def link_score(
    page_a: PageLinks,
    page_b: PageLinks,
    inlink_count: InlinkCount | None = None,
    max_inlinks: int = DEFAULT_MAX_INLINKS,
    weights: LinkWeights = DEFAULT_WEIGHTS,
) -> tuple[float, dict[str, bool]]:
    """``(score in [0, 1], pieces)``; 0 for pages of one language or of an unknown language."""
    known = all(base_language(p.lang) not in ("", "und", "x") for p in (page_a, page_b))
    cross = known and not same_language(page_a.lang, page_b.lang)
    pieces = {
        "hreflang": hreflang_evidence(page_a, page_b, inlink_count, max_inlinks),
        "switcher": switcher_evidence(page_a, page_b, inlink_count, max_inlinks),
        "mutual": mutual_links(page_a, page_b),
        "cross_language": cross,
    }
    if not cross:
        return 0.0, pieces
    miss = 1.0
    for name in ("hreflang", "switcher", "mutual"):
        if pieces[name]:
            miss *= 1.0 - getattr(weights, name)
    return 1.0 - miss, pieces


def has_link_evidence(
    page_a: PageLinks,
    page_b: PageLinks,
    inlink_count: InlinkCount | None = None,
    max_inlinks: int = DEFAULT_MAX_INLINKS,
) -> bool:
    """Whether :func:`link_score` is above 0 with weights above 0: the pages are of two known
    languages and one piece holds, the cheapest asked first (most pairs a site's links propose
    have none)."""
    if any(base_language(p.lang) in ("", "und", "x") for p in (page_a, page_b)):
        return False
    if same_language(page_a.lang, page_b.lang):
        return False
    if mutual_links(page_a, page_b):
        return True
    # hreflang_evidence or switcher_evidence, each direction looked at once: both ask for a link
    # of their kind and then the same of a site-wide one (its target's menu pointing back).
    for src, dst in ((page_a, page_b), (page_b, page_a)):
        if not (_hreflang_link(src, dst) or _switcher_link(src, dst)):
            continue
        if inlink_count is None or inlink_count(dst.url, src.lang) <= max_inlinks:
            return True
        if _hreflang_link(dst, src) or _switcher_link(dst, src):
            return True
    return False
