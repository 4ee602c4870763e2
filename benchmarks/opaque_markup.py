"""The opaque-site generator's view of a site's files: its layout constants, the result types
(``OpaqueSite``, ``LangCodes``), charset handling, a tokenizer of HTML/XML tags and attributes
that keeps every byte it does not rewrite, and the site's TSV files (benchmarks/make_opaque_site.py)."""


from __future__ import annotations

import codecs
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

try:
    from bitext_spider.demo.loopback_server import CONTENT_TYPES_FILE
except ImportError:  # run from a checkout without the package installed
    CONTENT_TYPES_FILE = "content-types.tsv"



PAGE_DIR = "/p/"
ASSET_DIR = "/a/"
DEAD_DIR = "/x/"
HEX_DIGITS = 12
MAPPING_FILE = "mapping.tsv"
DEAD_LINKS_FILE = "dead-links.tsv"
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".shtml"})
XML_SUFFIXES = frozenset({".xml", ".rss", ".atom"})
INDEX_NAMES = ("index.html", "index.htm")  # what http.server serves for a directory, in its order
ROOT_PAGES = frozenset("/" + name for name in INDEX_NAMES)
# Language names for the language-slot variant's path segments.
LANGUAGE_NAMES = {
    "ar": "arabic", "bg": "bulgarian", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "es": "spanish", "fa": "persian", "fi": "finnish", "fr": "french", "gl": "galician",
    "he": "hebrew", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "it": "italian", "ja": "japanese",
    "ko": "korean", "nl": "dutch", "pl": "polish", "pt": "portuguese", "pt-br": "brazilian", "ro": "romanian",
    "ru": "russian", "sv": "swedish", "th": "thai", "tr": "turkish", "uk": "ukrainian", "vi": "vietnamese",
    "zh-hans": "simplified-chinese", "zh-hant": "traditional-chinese",
}
COPIED_PREFIXES = ("NOTICE", "LICENSE", "COPYING")
# A missing target with one of these extensions is a resource: its file name is kept when clean.
RESOURCE_EXTS = frozenset(
    re.split(
        r"\s+",
        "png jpg jpeg gif svg webp avif ico bmp tif tiff css js mjs pdf zip gz tgz doc docx xls xlsx ppt "
        "pptx odt ods odp txt csv json xml rss atom mp3 mp4 m4a webm ogg ogv wav flac woff woff2 ttf otf eot",
    )
)

_WS = " \t\n\r\f"
_LANG_ATTRS = frozenset({"lang", "xml:lang", "hreflang"})
_URL_ATTRS = frozenset(
    {"href", "src", "action", "formaction", "poster", "background", "cite", "longdesc", "data-src", "xlink:href"}
)
_SRCSET_ATTRS = frozenset({"srcset", "imagesrcset", "data-srcset"})
_XML_URL_ATTRS = frozenset({"href", "src", "xlink:href"})
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})
_LANG_META_NAMES = frozenset({"language", "lang", "content-language", "dc.language", "dcterms.language"})
_LOCALE_PROPERTIES = frozenset({"og:locale", "og:locale:alternate"})
_URL_METAS = frozenset(
    {"og:url", "og:image", "og:image:url", "og:image:secure_url", "og:video", "og:audio", "twitter:image",
     "twitter:image:src", "msapplication-tileimage", "thumbnail"}
)
_XML_LANG_ELEMENTS = frozenset({"language", "dc:language"})
_STATEFUL = ("utf-16", "utf-32", "utf-7", "iso2022", "hz")

_TAG_RE = re.compile(r"[a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{1,8})*")
_LANG_VALUE = re.compile(rb"""(?i)(?:^|[\s"'/])(?:xml:)?(?:hreflang|lang)\s*=\s*["']?\s*([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*)""")
_META_CHARSET = re.compile(rb"""(?i)<meta\s[^>]*?charset\s*=\s*["']?\s*([-\w.:]+)""")
_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([-\w.:]+)""")
_CSS_CHARSET = re.compile(rb"""^@charset\s+["']([-\w.:]+)""")
_CSS_URL = re.compile(
    r"""(?P<pre>url\(\s*)(?P<q>&quot;|&#39;|&#x27;|"|'|)(?P<url>.*?)(?P=q)(?P<post>\s*\))"""
    r"""|(?P<ipre>@import\s+)(?P<iq>"|')(?P<iurl>.*?)(?P=iq)""",
    re.IGNORECASE | re.DOTALL,
)
_REFRESH = re.compile(r"""(?is)^(\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?)(["']?)(.*?)(\2\s*)$""")
_COMMENT = re.compile(r"(^|\s)#.*$")


# --------------------------------------------------------------------------------------------------
# Result


@dataclass
class OpaqueSite:
    """What :func:`make_opaque` wrote and the old -> new URL mapping."""

    src: Path
    dst: Path
    base_url: str
    seed: int
    folder: str = "www"  # the document root's folder name (hosts.tsv)
    mapping: dict[str, str] = field(default_factory=dict)  # old URL -> new URL, pages and files
    page_files: dict[str, str] = field(default_factory=dict)  # old -> new path of every HTML file
    pages: list[tuple[str, str]] = field(default_factory=list)  # new pages.tsv rows (url, lang)
    gold: list[tuple[str, str, str, str]] = field(default_factory=list)  # new gold.tsv rows
    seeds: list[str] = field(default_factory=list)  # new seed URLs
    dead_links: dict[str, str] = field(default_factory=dict)  # old internal URL to nothing -> new URL
    lang_codes: frozenset[str] = frozenset()
    html_pages: int = 0
    files_copied: int = 0
    files_renamed: int = 0
    links_rewritten: int = 0  # internal references rewritten, dead ones included
    links_dead: int = 0
    links_external: int = 0  # external (or non-http) references left alone
    lang_attrs_removed: int = 0
    elements_removed: int = 0  # language metas (and alternates with --drop-alternates)
    robots_rules_added: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (old path, error)

    def new_url(self, old_url: str) -> str:
        """The new URL of an old page or file URL (KeyError when it was neither)."""
        return self.mapping[old_url]

    def summary(self) -> str:
        return (
            f"{self.html_pages} HTML pages made opaque ({len(self.pages)} in pages.tsv, "
            f"{len(self.gold)} gold pairs), {self.files_copied} other files ({self.files_renamed} renamed); "
            f"{self.links_rewritten} internal links rewritten ({self.links_dead} of them dead, "
            f"{len(self.dead_links)} distinct dead targets), {self.links_external} external left; "
            f"{self.lang_attrs_removed} lang/xml:lang/hreflang attributes and "
            f"{self.elements_removed} language elements removed; {self.robots_rules_added} robots rules "
            f"added; {len(self.failures)} failures"
        )


# --------------------------------------------------------------------------------------------------
# Helpers


class LangCodes:
    """Language tags of a site, to tell whether a path carries one."""

    def __init__(self, tags: Iterable[str]) -> None:
        codes: set[str] = set()
        for tag in tags:
            tag = tag.strip().lower().replace("_", "-")
            if _TAG_RE.fullmatch(tag):
                codes.add(tag)
                codes.add(tag.split("-", 1)[0])
        self.codes = frozenset(codes)

    def in_path(self, path: str) -> bool:
        """Whether a segment or file-name part of ``path`` (split at ``/ . - _``) is a language code."""
        tokens = [t for t in re.split(r"[/._\-\s+,;=~]+", unquote(path).lower()) if t]
        for i, tok in enumerate(tokens):
            if tok in self.codes or (i + 1 < len(tokens) and f"{tok}-{tokens[i + 1]}" in self.codes):
                return True
        return False


@dataclass
class _Codec:
    """A page's bytes as a ``str`` to scan: Latin-1 (byte-exact) or, for UTF-16 and stateful
    encodings, really decoded."""

    encoding: str
    text_mode: bool = False
    bom: bytes = b""

    def view(self, data: bytes) -> str:
        if self.text_mode:
            return data[len(self.bom) :].decode(self.encoding)
        return data.decode("latin-1")

    def to_str(self, view: str) -> str:
        return view if self.text_mode else view.encode("latin-1").decode(self.encoding, "replace")

    def to_view(self, text: str) -> str:
        return text if self.text_mode else text.encode(self.encoding, "xmlcharrefreplace").decode("latin-1")

    def to_bytes(self, view: str) -> bytes:
        return self.bom + view.encode(self.encoding) if self.text_mode else view.encode("latin-1")


def _codec_name(name: str | bytes | None) -> str | None:
    if not name:
        return None
    if isinstance(name, bytes):
        name = name.decode("ascii", "replace")
    try:
        return codecs.lookup(name.strip()).name
    except LookupError:
        return None


def sniff_codec(data: bytes, content_type: str | None = None, html_page: bool = True) -> _Codec:
    """The charset a browser would use (BOM, header, meta or XML declaration, else UTF-8)."""
    for bom, enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return _Codec(enc, enc != "utf-8", bom if enc != "utf-8" else b"")
    enc = None
    if content_type:
        m = re.search(r"(?i)charset\s*=\s*[\"']?([-\w.:]+)", content_type)
        enc = _codec_name(m.group(1)) if m else None
    if enc is None:
        m = _META_CHARSET.search(data[:4096]) if html_page else None
        m = m or _XML_DECL.search(data[:1024]) or _CSS_CHARSET.search(data[:1024])
        enc = _codec_name(m.group(1)) if m else None
        if enc and enc.startswith(("utf-16", "utf-32")):
            enc = "utf-8"  # a page that says UTF-16 in ASCII bytes is not UTF-16 (HTML spec)
    enc = enc or "utf-8"
    return _Codec(enc, text_mode=enc.startswith(_STATEFUL))


def _norm_path(path: str) -> str:
    """A URL path the way http.server maps it to a file: no empty, ``.`` or ``..`` segments."""
    words = [w for w in path.split("/") if w and w not in (".", "..")]
    out = "/" + "/".join(words)
    if path.endswith("/") and out != "/":
        out += "/"
    return out


def _url_path(path: str) -> str:
    return quote(path, safe="/!$&'()*+,;=:@~")


def _is_html(path: str, ctype: str | None) -> bool:
    if ctype:
        return ctype.split(";")[0].strip().lower() in ("text/html", "application/xhtml+xml")
    return posixpath.splitext(path)[1].lower() in HTML_SUFFIXES


def _kind(path: str, ctype: str | None) -> str:
    if _is_html(path, ctype):
        return "html"
    if path == "/robots.txt":
        return "robots"
    ext = posixpath.splitext(path)[1].lower()
    mime = (ctype or "").split(";")[0].strip().lower()
    if ext == ".css" or mime == "text/css":
        return "css"
    if ext in XML_SUFFIXES or mime.endswith(("/xml", "+xml")):
        return "xml"
    return "file"


@dataclass
class _Attr:
    ws: int  # start of the whitespace before the attribute
    start: int
    name_end: int
    value: tuple[int, int] | None  # span of the raw value, quotes excluded
    quote: str
    end: int


def _scan_tag(s: str, i: int) -> tuple[int, str, list[_Attr], bool]:
    """Scan the start tag at ``s[i] == '<'``: (end, lower-case name, attributes, self-closing)."""
    n = len(s)
    j = i + 1
    while j < n and s[j] not in _WS and s[j] not in "/>":
        j += 1
    name = s[i + 1 : j].lower()
    attrs: list[_Attr] = []
    self_closing = False
    while True:
        prev = j
        while j < n and (s[j] in _WS or s[j] == "/"):
            self_closing = s[j] == "/"
            j += 1
        if j >= n:
            return n, name, attrs, self_closing
        if s[j] == ">":
            return j + 1, name, attrs, self_closing
        self_closing = False
        ws = j
        while ws > prev and s[ws - 1] in _WS:
            ws -= 1
        a0 = j
        j += 1
        while j < n and s[j] not in _WS and s[j] not in "/>=":
            j += 1
        a1 = j
        k = j
        while k < n and s[k] in _WS:
            k += 1
        if k < n and s[k] == "=":
            k += 1
            while k < n and s[k] in _WS:
                k += 1
            if k < n and s[k] in "\"'":
                q = s[k]
                e = s.find(q, k + 1)
                e = n if e < 0 else e
                attrs.append(_Attr(ws, a0, a1, (k + 1, e), q, min(e + 1, n)))
                j = min(e + 1, n)
            else:
                e = k
                while e < n and s[e] not in _WS and s[e] != ">":
                    e += 1
                attrs.append(_Attr(ws, a0, a1, (k, e), "", e))
                j = e
        else:
            attrs.append(_Attr(ws, a0, a1, None, "", a1))


def _tokenize(s: str, xml: bool):
    """Yield the pieces of a document: ``("text", a, b)``, ``("tag", start, end, name, attrs)`` for
    start tags, ``("raw", a, b, name)`` for the contents of script/style/title... (HTML only) and
    ``("lang-element", a, b)`` for a whole ``<language>`` element (XML only). Comments, end tags,
    doctypes and processing instructions are skipped; CDATA counts as text."""
    n = len(s)
    pos = text_start = 0
    while True:
        i = s.find("<", pos)
        if i < 0:
            if text_start < n:
                yield ("text", text_start, n)
            return
        if xml and s.startswith("<![CDATA[", i):
            end = s.find("]]>", i)
            pos = n if end < 0 else end + 3  # CDATA is text: it stays in the current text piece
            continue
        nxt = s[i + 1 : i + 2]
        if nxt not in ("!", "?", "/") and not nxt.isalpha():
            pos = i + 1
            continue
        if text_start < i:
            yield ("text", text_start, i)
        if s.startswith("<!--", i):
            if s.startswith(("<!-->", "<!--->"), i):
                end = s.find(">", i + 4) + 1
            else:
                end = s.find("-->", i + 4)
                end = n if end < 0 else end + 3
            pos = text_start = end
            continue
        if nxt in ("!", "?", "/"):  # end tags, doctype, processing instructions, bogus comments
            end = s.find(">", i)
            pos = text_start = n if end < 0 else end + 1
            continue
        end, name, attrs, self_closing = _scan_tag(s, i)
        pos = text_start = end
        if xml and name in _XML_LANG_ELEMENTS and not self_closing:
            close = re.compile(rf"</{re.escape(name)}\s*>", re.IGNORECASE).search(s, end)
            pos = text_start = close.end() if close else end
            yield ("lang-element", i, pos)
            continue
        yield ("tag", i, end, name, attrs)
        if not xml and name in _RAW_TEXT:  # HTML ignores "/>" here: the raw text runs to the end tag
            close = re.compile(rf"</{re.escape(name)}[\s/>]", re.IGNORECASE).search(s, end)
            stop = close.start() if close else n
            yield ("raw", end, stop, name)
            pos = text_start = stop


def _line_span(s: str, a: int, b: int) -> tuple[int, int]:
    """Widen ``[a, b)`` to its whole line when nothing else is on that line."""
    ls = s.rfind("\n", 0, a) + 1
    le = s.find("\n", b)
    le = len(s) if le < 0 else le + 1
    if s[ls:a].strip(" \t") == "" and s[b:le].strip(" \t\r\n") == "":
        return ls, le
    return a, b


# --------------------------------------------------------------------------------------------------
# The transformation




def _read_ctypes(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text("utf-8").splitlines():
        if "\t" in line:
            p, t = line.split("\t", 1)
            out[p] = t
    return out


def _read_tsv(path: Path, width: int) -> list[tuple[str, ...]]:
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            cells = tuple(line.split("\t"))
            if len(cells) != width:
                raise ValueError(f"{path}: expected {width} columns: {line!r}")
            rows.append(cells)
    return rows


