"""STRAND linearization of an HTML page into a tag sequence, plus its text blocks.

Tomás et al., *WebMining* (section 2.2): "a sequence of HTML tags is extracted from the two
webpages. Then, the parameters of the tags are erased and the plain text is replaced by a special
tag <text_n>, where n is the number of words that have been replaced."  The same walk also yields
the page's text blocks (one per block-level element with text), which give the paragraph count of
the size filter (section 4) and the text for language identification.

Tokens are encoded as int32 so the numba kernels can compare them without a vocabulary:

* ``<text_n>`` is ``n`` itself (n >= 1, capped at ``TEXT_CAP``);
* a start or end tag is a negative number derived from a CRC of its name, stable across processes
  and crawls, so sequences stored in the database stay comparable after a resume.
"""

from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass, field

import lxml.etree
import lxml.html
import numpy as np

TEXT_CAP = 30000

# Elements whose content is not page text.
_SKIP_CONTENT = frozenset({"script", "style", "noscript", "template", "svg", "math"})
# HTML void elements: they never have an end tag, so none is emitted.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
BLOCK_TAGS = frozenset(
    {
        "p", "div", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote",
        "dd", "dt", "title", "caption", "figcaption", "section", "article", "header", "footer",
        "nav", "aside", "main", "address", "summary", "legend", "label", "option", "body", "tr",
        "table", "ul", "ol", "dl", "form", "fieldset", "figure", "details", "center",
    }
)

# Scripts written without spaces between words: a run of these characters counts as
# ceil(len / 2) words, close to the number of words a translation into a spaced script has.
_NOSPACE = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
)
_WORD_RE = re.compile(rf"[{_NOSPACE}]+|[^\W_{_NOSPACE}]+(?:['’-][^\W_{_NOSPACE}]+)*|\d+")
_NOSPACE_RE = re.compile(rf"[{_NOSPACE}]")


# Punctuation that often sticks to a word ("word," "(word)" "«word»"); none of it is a word
# character, so stripping it leaves the word itself.
_STUCK_PUNCTUATION = ".,;:!?()[]{}\"'«»“”‘’–—-…/|*#&+=<>"


def word_count(text: str) -> int:
    r"""Number of words in ``text``; runs of CJK/Thai characters count one word per two characters.

    The count is that of ``_WORD_RE`` matches.  No match spans whitespace, and a whitespace-separated
    token of word characters (``str.isalnum``, the regex's ``[^\W_]``) is exactly one match, so
    the regex only runs on the tokens that are not.  The regex alone took half of the STRAND
    linearization's time, three times what this takes.
    """
    if not _NOSPACE_RE.search(text):
        n = 0
        rest = []
        for token in text.split():
            if not token.isalnum():
                token = token.strip(_STUCK_PUNCTUATION)
                if not token:
                    continue
                if not token.isalnum():
                    rest.append(token)
                    continue
            n += 1
        return n + len(_WORD_RE.findall(" ".join(rest))) if rest else n
    n = 0
    for m in _WORD_RE.finditer(text):
        tok = m.group()
        if _NOSPACE_RE.match(tok):
            n += (len(tok) + 1) // 2
        else:
            n += 1
    return n


@functools.lru_cache(maxsize=4096)
def tag_code(name: str, end: bool = False) -> int:
    """Stable negative int32 code of a start (or end) tag."""
    key = ("/" if end else "") + name
    return -1 - (zlib.crc32(key.encode("utf-8")) & 0x3FFFFFFF)


# What the walk needs of a tag name, looked up once per element: the lower-case name, its start
# and end codes (0: a void element, which has no end tag) and its kind.
_BLOCK, _SKIP, _IMG, _TITLE = 1, 2, 4, 8
_TAG_INFO: dict[str, tuple[str, int, int, int]] = {}


def _tag_info(raw: str) -> tuple[str, int, int, int]:
    tag = raw.lower()
    kind = (
        (_BLOCK if tag in BLOCK_TAGS else 0)
        | (_SKIP if tag in _SKIP_CONTENT else 0)
        | (_IMG if tag == "img" else 0)
        | (_TITLE if tag == "title" else 0)
    )
    info = (tag, tag_code(tag), 0 if tag in _VOID else tag_code(tag, end=True), kind)
    if len(_TAG_INFO) < 4096:  # tag names come from the pages; bound the memo
        _TAG_INFO[raw] = info
    return info


@dataclass
class Linearized:
    """What the later stages need from one page's markup."""

    tokens: np.ndarray  # int32 tag sequence
    n_tags: int  # start tags
    blocks: list[str] = field(default_factory=list)  # text blocks in document order
    block_tags: list[str] = field(default_factory=list)  # the element each block came from
    # Whether each block is inside page chrome (nav, header, footer, aside, menu).
    block_chrome: list[bool] = field(default_factory=list)
    title: str = ""
    declared_lang: str = ""
    images: list[str] = field(default_factory=list)

    @functools.cached_property
    def n_words(self) -> int:
        """Words in all text chunks (the sum of the ``<text_n>`` tokens)."""
        return int(self.tokens[self.tokens > 0].sum()) if len(self.tokens) else 0

    @property
    def n_paragraphs(self) -> int:
        return len(self.blocks)

    @property
    def text(self) -> str:
        return "\n".join(self.blocks)


def parse_html(html: str) -> lxml.html.HtmlElement | None:
    """Parse possibly broken HTML; None when there is nothing to parse."""
    if not html or not html.strip():
        return None
    # lxml refuses str input carrying an XML encoding declaration.
    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html, count=1)
    try:
        parser = lxml.html.HTMLParser(recover=True, remove_comments=True, remove_pis=True)
        root = lxml.html.document_fromstring(html, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return None
    return root


# HTML5 elements that hold a site's navigation and page furniture rather than its content.
CHROME_ELEMENTS = frozenset({"nav", "header", "footer", "aside", "menu"})


def linearize(html: str | lxml.html.HtmlElement | None, max_tokens: int = 0) -> Linearized:
    """Walk the page once: tag sequence, start-tag count, text blocks, title, images.

    ``html`` is the page source or the tree :func:`parse_html` made of it.

    ``max_tokens`` > 0 stops collecting tokens past that length (the page is then too large to
    compare structurally; the caller decides what to do with it).
    """
    root = parse_html(html) if isinstance(html, str) else html
    if root is None:
        return Linearized(tokens=np.zeros(0, dtype=np.int32), n_tags=0)

    tokens: list[int] = []
    n_tags = 0
    blocks: list[str] = []
    block_tags: list[str] = []
    block_chrome: list[bool] = []
    images: list[str] = []
    # Stack of open block elements, each with its pending text parts and whether it is inside
    # page chrome.
    block_stack: list[tuple[str, list[str], bool]] = [("body", [], False)]
    chrome = 0
    parts = block_stack[-1][1]
    title = ""

    def add_text(text: str) -> None:
        # Whitespace-only text is neither a word nor block text (blocks are whitespace-joined), so
        # callers skip it; it is half of the text nodes of a typical page.
        parts.append(text)
        n = word_count(text)
        if n == 0:
            return
        if tokens and tokens[-1] > 0:
            tokens[-1] = min(tokens[-1] + n, TEXT_CAP)
        else:
            tokens.append(min(n, TEXT_CAP))

    def flush_block() -> None:
        tag, pending, in_chrome = block_stack[-1]
        text = " ".join(" ".join(pending).split())
        pending.clear()
        if text:
            blocks.append(text)
            block_tags.append(tag)
            block_chrome.append(in_chrome)

    info = _TAG_INFO
    skip_depth = 0
    for event, el in lxml.etree.iterwalk(root, events=("start", "end")):
        raw = el.tag
        tag_info = info.get(raw) if raw.__class__ is str else None
        if tag_info is None:
            if not isinstance(raw, str):
                # Comments and processing instructions: only their tail is page text.
                if event == "end" and skip_depth == 0 and (text := el.tail) and not text.isspace():
                    add_text(text)
                continue
            tag_info = _tag_info(raw)
        tag, start_code, end_code, kind = tag_info
        if event == "start":
            if skip_depth:
                if kind & _SKIP:
                    skip_depth += 1
                continue
            n_tags += 1
            tokens.append(start_code)
            if tag in CHROME_ELEMENTS:
                chrome += 1
            if kind & _IMG:
                src = el.get("src")
                if src:
                    images.append(src.strip())
            if kind & _SKIP:
                skip_depth = 1
                continue
            if kind & _TITLE and not title:
                title = " ".join((el.text_content() or "").split())
            if kind & _BLOCK:
                flush_block()
                parts = []
                block_stack.append((tag, parts, chrome > 0))
            if (text := el.text) and not text.isspace():
                add_text(text)
        else:
            if skip_depth:
                if kind & _SKIP:
                    skip_depth -= 1
                if skip_depth:
                    continue
            elif kind & _BLOCK and len(block_stack) > 1:
                flush_block()
                block_stack.pop()
                parts = block_stack[-1][1]
            if tag in CHROME_ELEMENTS and chrome:
                chrome -= 1
            if end_code:
                tokens.append(end_code)
            if (text := el.tail) and not text.isspace():
                add_text(text)
        if max_tokens and len(tokens) > max_tokens:
            break
    while block_stack:
        flush_block()
        block_stack.pop()

    declared = root.get("lang") or root.get("xml:lang") or ""
    return Linearized(
        tokens=np.asarray(tokens, dtype=np.int32),
        n_tags=n_tags,
        blocks=blocks,
        block_tags=block_tags,
        block_chrome=block_chrome,
        title=title,
        declared_lang=declared.strip().lower(),
        images=images,
    )
