#!/usr/bin/env python3
"""Make the "opaque URL" variant of a test site: the same pages with no URL or language-code evidence.

    python benchmarks/make_opaque_site.py SRC DST [--seed N] [--overwrite] [--drop-alternates] [--hide-dirs]

SRC is a site folder (``hosts.tsv``, ``seeds.txt``, ``pages.tsv``, ``gold.tsv``, the document root
named in ``hosts.tsv``, optionally the ``content-types.tsv`` sidecar), as written by
``bitext_spider.demo.site.generate_site`` or found in ``../shared/data``. DST gets the same layout,
served by ``../shared/bench/serve.py DST`` or ``python -m bitext_spider.demo.loopback_server DST`` on the
same base URL, plus ``mapping.tsv`` (old URL TAB new URL, every page and file) and
``dead-links.tsv`` (internal links that pointed nowhere, old TAB new). Also importable:
``make_opaque(src, dst, seed=0) -> OpaqueSite``.

What changes
  * Every HTML file gets a random path ``/p/<12 hex>.html`` (seeded RNG, files drawn in sorted
    order), directory index pages included: ``/fr/`` and ``/fr/index.html`` both become that one
    page. The root ``/index.html`` stays where it is, so ``/`` is still the entry; ``seeds.txt`` is
    rewritten through the mapping.
  * Other files keep their path when no segment or file-name part is a language code (image file
    names are evidence for image matching); otherwise they move to ``/a/<hex>/<name>`` when only a
    directory carries the code, or to ``/a/<hex>.<ext>`` when the file name does (``logo-fr.png``).
    With ``--hide-dirs`` clean files outside the root folder move too, to ``/a/<hex>/<name>`` with one
    random folder name per original folder (``robots.txt``, ``sitemap.xml``... at the root stay).
    "Language code" means a language tag of the site (``pages.tsv``, ``gold.tsv`` and every
    ``lang``/``xml:lang``/``hreflang`` value found), or its primary subtag, as a token of the path
    split at ``/ . - _``.
  * Links to nothing (missing file, directory without index) keep pointing nowhere: a missing
    resource (an image, a script, a stylesheet... by extension) is renamed by the same rule as
    files, so a missing ``photo.jpg`` keeps its name; anything else goes to ``/x/<hex>``. The same
    old target always gets the same dead path, so translations that share a broken link still do.
  * In HTML: ``href src srcset imagesrcset action formaction poster background cite longdesc
    data-src data-srcset xlink:href``, ``object[data]``, ``meta refresh``, internal absolute URLs in
    ``meta[content]`` (``og:url``...), CSS ``url()``/``@import`` in ``style`` attributes and
    ``<style>`` blocks. A relative URL is resolved against the page's ORIGINAL URL (or its
    ``<base href>``) and written as an absolute path; an absolute internal URL stays absolute.
    Query strings and fragments are kept, fragment-only links and external links are untouched.
    Scripts, comments and text are never changed (so language-switcher anchor texts such as
    "Français" stay, and so does whatever inline JavaScript says).
  * Language markup is removed: ``lang``, ``xml:lang`` and ``hreflang`` attributes everywhere,
    ``<meta http-equiv=content-language>``, ``<meta name=language|lang|dc.language>``,
    ``og:locale`` metas. ``<link rel=alternate hreflang=..>`` keeps its (rewritten) href and loses
    only ``hreflang``: the links between translations stay, like the language switcher; with
    ``--drop-alternates`` those elements go entirely.
  * ``*.xml``/``*.rss``/``*.atom`` (sitemaps, feeds): internal URLs in text and in ``href``/``src``
    attributes are rewritten (absolute stays absolute), ``hreflang``/``xml:lang`` attributes and
    ``<language>``/``<dc:language>`` elements removed. Stylesheets: ``url()``/``@import``.
    ``robots.txt``: ``Sitemap:`` URLs rewritten; for each ``Allow``/``Disallow`` rule, every file it
    covered whose new path it no longer covers gets a rule of its own (the private page stays
    private), and a rule whose own path has a language code is dropped.
  * ``pages.tsv``/``gold.tsv`` through the mapping (same languages), ``hosts.tsv`` unchanged, the
    content-types sidecar re-keyed with the new paths. ``NOTICE``/``LICENSE`` files are copied.

Bytes: no HTML parser re-serializes anything. A page is scanned as a sequence of tags with a small
HTML5-like tokenizer over its bytes viewed as Latin-1 (every byte one character), so every
ASCII-compatible charset (UTF-8, ISO-8859-*, windows-125*, Shift_JIS, EUC-*, GBK, Big5: none
uses the bytes ``< > " ' =`` or whitespace inside a multibyte character) round-trips exactly: a
page is byte-identical to the original except inside the tags whose attributes were rewritten or
removed (and the removed language metas). Attribute values are decoded with the page's charset
(BOM, then the sidecar Content-Type, then ``<meta charset>``/``http-equiv``, then UTF-8) only to
resolve them; new values are ASCII (percent-encoded paths). UTF-16/32 and stateful encodings
(ISO-2022-*, UTF-7, HZ) are decoded and re-encoded instead. A page that cannot be processed is
copied unchanged to its new path and reported in ``OpaqueSite.failures`` (exit status 1).

Limits: one host (one line in ``hosts.tsv``); JavaScript-built links, ``<script>`` contents and
JSON-LD are not rewritten; external URLs keep whatever language codes they carry.
Deterministic: the output is a function of the input files and ``seed``.
"""

from __future__ import annotations

import argparse
import codecs
import html
import posixpath
import random
import re
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

try:
    from bitext_spider.demo.site import CONTENT_TYPES_FILE
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


class _Opaquer:
    def __init__(self, src: Path, dst: Path, seed: int, drop_alternates: bool, hide_dirs: bool) -> None:
        self.src, self.dst, self.seed = src, dst, seed
        self.drop_alternates = drop_alternates
        self.hide_dirs = hide_dirs
        self.dir_names: dict[str, str] = {}
        lines = [ln for ln in (src / "hosts.tsv").read_text("utf-8").splitlines() if ln.strip()]
        if len(lines) != 1 or "\t" not in lines[0]:
            raise ValueError(f"{src / 'hosts.tsv'}: expected exactly one 'folder<TAB>base URL' line")
        self.hosts_text = (src / "hosts.tsv").read_bytes()
        folder, base = lines[0].split("\t", 1)
        self.folder = folder.strip()
        self.base = base.strip().rstrip("/")
        parts = urlsplit(self.base)
        self.origin = self._origin(parts)
        self.www = src / self.folder
        if not self.www.is_dir():
            raise ValueError(f"document root {self.www} does not exist")
        self.ctypes = _read_ctypes(src / CONTENT_TYPES_FILE)
        self.has_sidecar = (src / CONTENT_TYPES_FILE).is_file()
        self.result = OpaqueSite(src=src, dst=dst, base_url=self.base, seed=seed, folder=self.folder)
        self.files: dict[str, Path] = {}
        for p in sorted(self.www.rglob("*")):
            if p.is_file():
                self.files["/" + p.relative_to(self.www).as_posix()] = p
        self.kinds = {path: _kind(path, self.ctypes.get(path)) for path in self.files}
        self.dir_index: dict[str, str] = {}
        for path in self.files:
            if self.kinds[path] == "html":
                d, name = posixpath.split(path)
                if name in INDEX_NAMES:
                    key = d.rstrip("/") + "/"
                    cur = self.dir_index.get(key)
                    if cur is None or INDEX_NAMES.index(name) < INDEX_NAMES.index(posixpath.basename(cur)):
                        self.dir_index[key] = path
        self.pages_rows = _read_tsv(src / "pages.tsv", 2)
        self.gold_rows = _read_tsv(src / "gold.tsv", 4)
        self.codes = LangCodes(self._site_tags())
        self.result.lang_codes = self.codes.codes
        self.new_path: dict[str, str] = {}
        self.dead: dict[str, str] = {}
        self.rng = random.Random(seed)
        self.dead_rng = random.Random(f"opaque-dead:{seed}")
        self._words: set[str] = set()
        self.abs_pattern = re.compile(re.escape(self.base) + r"""(?=[/?#\s<>"']|$)[^\s<>"']*""", re.IGNORECASE)

    # -- naming ----------------------------------------------------------------------------------

    @staticmethod
    def _origin(parts) -> tuple[str, str, int | None]:
        scheme = parts.scheme.lower()
        try:
            port = parts.port
        except ValueError:
            port = -1
        return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)

    def _site_tags(self) -> set[str]:
        tags = {row[1] for row in self.pages_rows} | {row[0] for row in self.gold_rows}
        tags |= {row[2] for row in self.gold_rows}
        for path, kind in self.kinds.items():
            if kind in ("html", "xml"):
                data = self.files[path].read_bytes()
                tags |= {m.group(1).decode("ascii") for m in _LANG_VALUE.finditer(data)}
        return tags

    def _hex(self, rng: random.Random) -> str:
        """A fresh random name; never a word already used in the site's paths."""
        while True:
            h = f"{rng.getrandbits(HEX_DIGITS * 4):0{HEX_DIGITS}x}"
            if h not in self._words:
                self._words.add(h)
                return h

    def _ext(self, name: str, default: str = "") -> str:
        ext = posixpath.splitext(name)[1]
        if ext and re.fullmatch(r"\.[A-Za-z0-9]{1,8}", ext) and not self.codes.in_path(ext):
            return ext
        return default

    def _resource_name(self, path: str, rng: random.Random, folder: str) -> str:
        """A file's new path: unchanged when clean, else under ``folder`` keeping a clean file name.

        With ``hide_dirs`` every file outside the root directory moves, its folder replaced by one
        random name per original folder (files that shared a folder still do)."""
        directory, name = posixpath.split(path)
        if not self.codes.in_path(path) and (not self.hide_dirs or directory == "/"):
            return path
        if name and not self.codes.in_path(name):
            if self.hide_dirs:
                if directory not in self.dir_names:
                    self.dir_names[directory] = self._hex(rng)
                return f"{folder}{self.dir_names[directory]}/{name}"
            return f"{folder}{self._hex(rng)}/{name}"
        return f"{folder}{self._hex(rng)}{self._ext(name)}"

    def assign_names(self) -> None:
        self._words = {w for path in self.files for w in re.split(r"[/.]", path) if w}
        for path in self.files:  # clean files keep their path (drawn names avoid every word of the paths)
            kept = not self.hide_dirs or posixpath.dirname(path) == "/"
            if self.kinds[path] != "html" and not self.codes.in_path(path) and kept:
                self.new_path[path] = path
        for path in self.files:
            if path in self.new_path:
                continue
            if self.kinds[path] == "html":
                new = path if path in ROOT_PAGES else f"{PAGE_DIR}{self._hex(self.rng)}{self._ext(path, '.html')}"
            else:
                new = self._resource_name(path, self.rng, ASSET_DIR)
            self.new_path[path] = new

    # -- resolving ------------------------------------------------------------------------------

    def target(self, path: str) -> tuple[str, bool]:
        """New path of an old (unquoted) URL path, and whether something is there."""
        path = _norm_path(path)
        if path == "/":
            return "/", "/" in self.dir_index
        if path in self.files:
            return self.new_path[path], True
        index = self.dir_index.get(path if path.endswith("/") else path + "/")
        if index is not None:
            return self.new_path[index], True
        return self._dead_path(path), False

    def _dead_path(self, path: str) -> str:
        new = self.dead.get(path)
        if new is None:
            name = posixpath.basename(path)
            ext = posixpath.splitext(name)[1].lower().lstrip(".")
            if name and ext in RESOURCE_EXTS:
                new = self._resource_name(path, self.dead_rng, ASSET_DIR)
            else:
                new = f"{DEAD_DIR}{self._hex(self.dead_rng)}" + ("/" if path.endswith("/") else self._ext(name))
            self.dead[path] = new
        return new

    def map_url(self, value: str, base: str) -> str | None:
        """The rewritten form of a URL reference, None when it is not internal (left alone)."""
        try:
            absolute = urljoin(base, value)
            parts = urlsplit(absolute)
            origin = self._origin(parts)
        except ValueError:
            return None
        if parts.scheme.lower() not in ("http", "https") or origin != self.origin:
            self.result.links_external += 1
            return None
        new_path, live = self.target(unquote(parts.path) or "/")
        self.result.links_rewritten += 1
        if not live:
            self.result.links_dead += 1
            self.result.dead_links[self.base + _url_path(_norm_path(unquote(parts.path)))] = self.base + _url_path(new_path)
        out = _url_path(new_path)
        if parts.query:
            out += "?" + parts.query
        if parts.fragment:
            out += "#" + parts.fragment
        if urlsplit(value).scheme or value.startswith("//"):
            out = self.base + out  # an absolute URL stays absolute
        return out

    def rewrite_value(self, raw: str, codec: _Codec, base: str, entities: bool) -> str | None:
        """Rewrite one raw (view) URL value; None when unchanged."""
        text = codec.to_str(raw)
        if entities:
            text = html.unescape(text)
        value = text.strip(_WS).replace("\t", "").replace("\n", "").replace("\r", "")
        if not value or value.startswith("#"):
            return None
        new = self.map_url(value, base)
        if new is None:
            return None
        if entities:
            new = new.replace("&", "&amp;")
        return codec.to_view(new)

    def abs_url(self, url: str) -> tuple[str, bool] | None:
        """New absolute URL of an absolute old URL (for the TSV files), with its liveness."""
        parts = urlsplit(url)
        if self._origin(parts) != self.origin or parts.scheme.lower() not in ("http", "https"):
            return None
        new_path, live = self.target(unquote(parts.path) or "/")
        out = self.base + _url_path(new_path)
        if parts.query:
            out += "?" + parts.query
        if parts.fragment:
            out += "#" + parts.fragment
        return out, live

    # -- markup ---------------------------------------------------------------------------------

    def rewrite_markup(self, s: str, codec: _Codec, url: str, xml: bool) -> str:
        """Rewrite links and drop language markup in an HTML (or XML) document viewed as ``s``."""
        edits: list[tuple[int, int, str]] = []
        base = url if xml else self._base_href(s, codec, url)
        for tok in _tokenize(s, xml):
            kind = tok[0]
            if kind == "text":
                if xml:
                    self._text_urls(s, tok[1], tok[2], codec, edits)
            elif kind == "tag":
                _, start, end, name, attrs = tok
                self._tag(s, start, end, name, attrs, codec, base, xml, edits)
            elif kind == "raw":
                if tok[3] == "style":
                    self._css(s, tok[1], tok[2], codec, base, False, edits)
            elif kind == "lang-element":
                edits.append((*_line_span(s, tok[1], tok[2]), ""))
                self.result.elements_removed += 1
        return _apply(s, edits)

    def _base_href(self, s: str, codec: _Codec, url: str) -> str:
        """The document's base URL: its first ``<base href>`` (outside scripts and comments)."""
        for tok in _tokenize(s, False):
            if tok[0] == "tag" and tok[3] == "base":
                for a in tok[4]:
                    if s[a.start : a.name_end].lower() == "href" and a.value:
                        href = html.unescape(codec.to_str(s[a.value[0] : a.value[1]])).strip(_WS)
                        if href:
                            return urljoin(url, href)
        return url

    def _tag(self, s, start, end, name, attrs, codec, base, xml, edits) -> str | None:
        values: dict[str, str] = {}
        for a in attrs:
            key = s[a.start : a.name_end].lower()
            if key not in values:
                values[key] = "" if a.value is None else html.unescape(codec.to_str(s[a.value[0] : a.value[1]]))
        if not xml and name == "meta":
            equiv = values.get("http-equiv", "").strip().lower()
            meta_name = values.get("name", "").strip().lower()
            prop = values.get("property", "").strip().lower()
            if (
                equiv == "content-language"
                or meta_name in _LANG_META_NAMES
                or prop in _LOCALE_PROPERTIES
                or values.get("itemprop", "").strip().lower() == "inlanguage"
            ):
                edits.append((*_line_span(s, start, end), ""))
                self.result.elements_removed += 1
                return "removed"
        if (
            not xml
            and self.drop_alternates
            and name == "link"
            and "hreflang" in values
            and "alternate" in values.get("rel", "").lower().split()
        ):
            edits.append((*_line_span(s, start, end), ""))
            self.result.elements_removed += 1
            return "removed"
        for a in attrs:
            key = s[a.start : a.name_end].lower()
            if key in _LANG_ATTRS:
                edits.append((a.ws, a.end, ""))
                self.result.lang_attrs_removed += 1
                continue
            if a.value is None:
                continue
            v0, v1 = a.value
            raw = s[v0:v1]
            new = None
            if xml:
                if key in _XML_URL_ATTRS:
                    new = self.rewrite_value(raw, codec, base, True)
            elif key in _URL_ATTRS or (key == "data" and name == "object"):
                new = self.rewrite_value(raw, codec, base, True)
            elif key in _SRCSET_ATTRS:
                new = self._srcset(raw, codec, base)
            elif key == "style":
                new = self._css_text(raw, codec, base, True)
            elif key == "content" and name == "meta":
                new = self._meta_content(raw, values, codec, base)
            if new is None or new == raw:
                continue
            if a.quote:
                new = new.replace(a.quote, "&quot;" if a.quote == '"' else "&#39;")
                edits.append((v0, v1, new))
            elif re.fullmatch(r"[^\s\"'=<>`]+", new):
                edits.append((v0, v1, new))
            else:
                edits.append((v0, v1, '"' + new.replace('"', "&quot;") + '"'))
        return None

    def _meta_content(self, raw: str, values: dict[str, str], codec: _Codec, base: str) -> str | None:
        if values.get("http-equiv", "").strip().lower() == "refresh":
            m = _REFRESH.match(raw)
            if not m or not m.group(3).strip():
                return None
            new = self.rewrite_value(m.group(3), codec, base, True)
            return None if new is None else m.group(1) + m.group(2) + new + m.group(4)
        key = (values.get("property") or values.get("name") or values.get("itemprop") or "").strip().lower()
        value = values.get("content", "").strip()
        if key in _URL_METAS or (
            value.startswith(("http://", "https://", "//")) and self._origin(urlsplit(urljoin(base, value))) == self.origin
        ):
            return self.rewrite_value(raw, codec, base, True)
        return None

    def _srcset(self, raw: str, codec: _Codec, base: str) -> str | None:
        out: list[str] = []
        i, n = 0, len(raw)
        changed = False
        while i < n:
            j = i
            while j < n and (raw[j] in _WS or raw[j] == ","):
                j += 1
            out.append(raw[i:j])
            i = j
            if i >= n:
                break
            while j < n and raw[j] not in _WS:
                j += 1
            url = raw[i:j]
            stripped = url.rstrip(",")
            new = self.rewrite_value(stripped, codec, base, True) if stripped else None
            if new is not None:
                changed = True
                out.append(new + url[len(stripped) :])
            else:
                out.append(url)
            i = j
            depth = 0
            while j < n and not (raw[j] == "," and depth <= 0) and url == stripped:
                depth += raw[j] == "("
                depth -= raw[j] == ")"
                j += 1
            out.append(raw[i:j])
            i = j
        return "".join(out) if changed else None

    def _css_text(self, raw: str, codec: _Codec, base: str, entities: bool) -> str | None:
        edits: list[tuple[int, int, str]] = []
        self._css(raw, 0, len(raw), codec, base, entities, edits)
        return _apply(raw, edits) if edits else None

    def _css(self, s: str, a: int, b: int, codec: _Codec, base: str, entities: bool, edits) -> None:
        for m in _CSS_URL.finditer(s, a, b):
            group = "url" if m.group("pre") is not None else "iurl"
            raw = m.group(group)
            if raw.strip().lower().startswith("data:"):
                continue
            new = self.rewrite_value(raw, codec, base, entities)
            if new is not None:
                edits.append((m.start(group), m.end(group), new))

    def _text_urls(self, s: str, a: int, b: int, codec: _Codec, edits) -> None:
        for m in self.abs_pattern.finditer(s, a, b):
            new = self.rewrite_value(m.group(0), codec, self.base, True)
            if new is not None and new != m.group(0):
                edits.append((m.start(), m.end(), new))

    # -- files ----------------------------------------------------------------------------------

    def robots(self, s: str, codec: _Codec) -> str:
        out = []
        all_paths = [(p, self.target(p)[0]) for p in list(self.files) + list(self.dir_index)]
        for line in s.splitlines(keepends=True):
            body = line.rstrip("\r\n")
            m = re.match(r"(?i)^(\s*)(allow|disallow)(\s*:\s*)([^#\s]*)(.*)$", body)
            if not m:
                edits: list[tuple[int, int, str]] = []
                self._text_urls(line, 0, len(line), codec, edits)
                out.append(_apply(line, edits))
                continue
            rule = codec.to_str(m.group(4))
            if not rule:
                out.append(line)
                continue
            rx = _robots_regex(unquote(rule))
            extra = sorted({new for old, new in all_paths if rx.match(old) and not rx.match(new)})
            if not self.codes.in_path(rule):
                out.append(line)
            eol = line[len(body) :] or "\n"
            for new in extra:
                out.append(f"{m.group(1)}{m.group(2)}{m.group(3)}{_url_path(new)}{eol}")
                self.result.robots_rules_added += 1
        return "".join(out)

    def process_file(self, path: str) -> bytes:
        data = self.files[path].read_bytes()
        kind = self.kinds[path]
        if kind == "file":
            return data
        url = self.base + _url_path(path)
        codec = sniff_codec(data, self.ctypes.get(path), html_page=kind == "html")
        s = codec.view(data)
        if kind == "html":
            s = self.rewrite_markup(s, codec, url, xml=False)
        elif kind == "xml":
            s = self.rewrite_markup(s, codec, url, xml=True)
        elif kind == "css":
            s = self._css_text(s, codec, url, False) or s
        elif kind == "robots":
            s = self.robots(s, codec)
        return codec.to_bytes(s)

    def run(self) -> OpaqueSite:
        res = self.result
        self.assign_names()
        new_www = self.dst / self.folder
        new_www.mkdir(parents=True, exist_ok=True)
        for path in self.files:
            kind = self.kinds[path]
            try:
                data = self.process_file(path)
            except Exception as exc:  # noqa: BLE001 - reported, the page is kept
                res.failures.append((path, f"{type(exc).__name__}: {exc}"))
                data = self.files[path].read_bytes()
            new = self.new_path[path]
            target = new_www / new.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if kind == "html":
                res.html_pages += 1
                res.page_files[path] = new
            else:
                res.files_copied += 1
                res.files_renamed += new != path
        self._metadata()
        return res

    def _metadata(self) -> None:
        res = self.result
        for path, new in self.new_path.items():
            res.mapping[self.base + _url_path(path)] = self.base + _url_path(new)
        for d, index in self.dir_index.items():
            res.mapping[self.base + _url_path(d)] = self.base + _url_path("/" if d == "/" else self.new_path[index])
        for url, lang in self.pages_rows:
            mapped = self.abs_url(url)
            if mapped is None or not mapped[1]:
                res.failures.append((url, "pages.tsv URL is not a page of the site"))
                continue
            res.pages.append((mapped[0], lang))
        for l1, u1, l2, u2 in self.gold_rows:
            m1, m2 = self.abs_url(u1), self.abs_url(u2)
            if not (m1 and m2 and m1[1] and m2[1]):
                res.failures.append((f"{u1} {u2}", "gold.tsv URL is not a page of the site"))
                continue
            res.gold.append((l1, m1[0], l2, m2[0]))
        res.pages.sort()
        res.gold.sort()
        dst = self.dst
        (dst / "hosts.tsv").write_bytes(self.hosts_text)
        (dst / "pages.tsv").write_text("".join(f"{u}\t{lang}\n" for u, lang in res.pages), "utf-8")
        (dst / "gold.tsv").write_text("".join("\t".join(row) + "\n" for row in res.gold), "utf-8")
        (dst / MAPPING_FILE).write_text("".join(f"{o}\t{n}\n" for o, n in sorted(res.mapping.items())), "utf-8")
        (dst / DEAD_LINKS_FILE).write_text(
            "".join(f"{o}\t{n}\n" for o, n in sorted(res.dead_links.items())), "utf-8"
        )
        seeds_src = self.src / "seeds.txt"
        if seeds_src.is_file():
            (dst / "seeds.txt").write_text(self._seeds(seeds_src.read_text("utf-8")), "utf-8")
        if self.has_sidecar:
            rows = {}
            for path, ctype in self.ctypes.items():
                norm = _norm_path(path)
                if norm in self.files:
                    rows[self.new_path[norm]] = ctype
                elif not self.codes.in_path(path):
                    rows[path] = ctype
            (dst / CONTENT_TYPES_FILE).write_text("".join(f"{p}\t{t}\n" for p, t in sorted(rows.items())), "utf-8")
        for p in sorted(self.src.iterdir()):
            if p.is_file() and p.name.upper().startswith(COPIED_PREFIXES):
                shutil.copyfile(p, dst / p.name)

    def _seeds(self, text: str) -> str:
        out = []
        for line in text.splitlines():
            m = _COMMENT.search(line)
            head, tail = (line[: m.start()], line[m.start() :]) if m else (line, "")

            def one(tok: re.Match[str]) -> str:
                mapped = self.abs_url(tok.group(0)) if "://" in tok.group(0) else None
                if mapped is None:
                    return tok.group(0)
                return mapped[0]

            new_line = re.sub(r"\S+", one, head) + tail
            out.append(new_line)
            self.result.seeds += [t for t in new_line.split() if "://" in t and not t.startswith("#")]
        return "\n".join(out) + "\n"


def _robots_regex(rule: str) -> re.Pattern[str]:
    anchored = rule.endswith("$")
    body = rule[:-1] if anchored else rule
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in body) + ("$" if anchored else ""))


def _apply(s: str, edits: list[tuple[int, int, str]]) -> str:
    if not edits:
        return s
    out = []
    last = 0
    for a, b, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if a < last:  # overlapping (a removed line holding another edit): the first wins
            continue
        out.append(s[last:a])
        out.append(new)
        last = b
    out.append(s[last:])
    return "".join(out)


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


def _prepare_dst(dst: Path, folder_names: Iterable[str], overwrite: bool) -> None:
    if dst.exists() and any(dst.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{dst} is not empty (pass overwrite=True / --overwrite to replace it)")
        for name in folder_names:
            target = dst / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    dst.mkdir(parents=True, exist_ok=True)


def make_opaque(
    src: Path,
    dst: Path,
    seed: int = 0,
    *,
    overwrite: bool = False,
    drop_alternates: bool = False,
    hide_dirs: bool = False,
) -> OpaqueSite:
    """Write the opaque-URL variant of site folder ``src`` into ``dst``; returns the mapping and counts.

    See the module docstring for what changes. ``dst`` must be empty or missing unless ``overwrite``
    (then only the files this function writes are replaced). Deterministic for a given ``seed``.
    """
    src, dst = Path(src), Path(dst)
    if src.resolve() == dst.resolve():
        raise ValueError("SRC and DST must differ")
    opaquer = _Opaquer(src, dst, seed, drop_alternates, hide_dirs)
    _prepare_dst(
        dst,
        [opaquer.folder, "hosts.tsv", "seeds.txt", "pages.tsv", "gold.tsv", MAPPING_FILE, DEAD_LINKS_FILE,
         CONTENT_TYPES_FILE],
        overwrite,
    )
    return opaquer.run()


# --------------------------------------------------------------------------------------------------
# Audit (an independent check with lxml) and command line


def audit(site: OpaqueSite) -> dict[str, object]:
    """Parse every new HTML page with lxml: language attributes left and internal links to nothing."""
    import lxml.html

    www = site.dst / site.folder
    base_origin = _Opaquer._origin(urlsplit(site.base_url))
    lang_left: list[str] = []
    unresolved: dict[str, int] = {}
    internal = 0
    unparsable: list[str] = []
    for new in sorted(set(site.page_files.values())):
        data = (www / new.lstrip("/")).read_bytes()
        url = site.base_url + _url_path(new)
        try:
            doc = lxml.html.document_fromstring(data)
        except Exception as exc:  # noqa: BLE001
            unparsable.append(f"{new}: {exc}")
            continue
        for el in doc.iter():
            if isinstance(el.tag, str) and any(k.lower() in _LANG_ATTRS for k in el.attrib):
                lang_left.append(new)
                break
        doc.make_links_absolute(url, resolve_base_href=True, handle_failures="ignore")
        for _el, _attr, link, _pos in doc.iterlinks():
            parts = urlsplit(link)
            try:
                if parts.scheme not in ("http", "https") or _Opaquer._origin(parts) != base_origin:
                    continue
            except ValueError:
                continue
            internal += 1
            path = _norm_path(unquote(parts.path) or "/")
            f = www / path.lstrip("/")
            if path != "/" and not f.is_file() and not (f / "index.html").is_file():
                unresolved[path] = unresolved.get(path, 0) + 1
    return {
        "pages": len(set(site.page_files.values())),
        "internal_links": internal,
        "dead_links": sum(unresolved.values()),
        "dead_targets": len(unresolved),
        "pages_with_lang_attributes": lang_left,
        "unparsable": unparsable,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path, help="site folder (hosts.tsv, www/, pages.tsv, gold.tsv, seeds.txt)")
    ap.add_argument("dst", type=Path, help="output folder (must be empty unless --overwrite)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--overwrite", action="store_true")
    ap.add_argument("--drop-alternates", action="store_true", help="remove <link rel=alternate hreflang> entirely")
    ap.add_argument("--hide-dirs", action="store_true",
                    help="also move clean files (and missing resources) out of their folders, names kept")
    a = ap.parse_args(argv)
    site = make_opaque(a.src, a.dst, a.seed, overwrite=a.overwrite, drop_alternates=a.drop_alternates,
                       hide_dirs=a.hide_dirs)
    print(site.summary())
    report = audit(site)
    print(
        f"audit: {report['pages']} pages, {report['internal_links']} internal links "
        f"({report['dead_links']} to {report['dead_targets']} missing targets, as in the source), "
        f"{len(report['pages_with_lang_attributes'])} pages with language attributes left, "
        f"{len(report['unparsable'])} unparsable"
    )
    for path, error in site.failures:
        print(f"FAILED {path}: {error}", file=sys.stderr)
    print(f"wrote {site.dst} (serve it: python ../shared/bench/serve.py {site.dst})")
    return 1 if site.failures or report["pages_with_lang_attributes"] else 0


if __name__ == "__main__":
    sys.exit(main())
