"""Decode a fetched page to text with the right charset.

Order of evidence, as browsers do (WHATWG encoding sniffing, simplified): byte-order mark, the
HTTP ``Content-Type`` charset, the document's own ``<meta charset>``, then statistical detection
(charset-normalizer).  A declared charset is only trusted when the bytes actually decode with it;
a page served as ISO-8859-1/windows-1252 whose bytes are valid multi-byte UTF-8 is read as UTF-8,
the most common mislabelling on the web.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

import charset_normalizer
from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding, read_bom, resolve_encoding

_SINGLE_BYTE_WESTERN = {"cp1252", "latin_1", "iso8859_15"}
_DETECT_BYTES = 256 * 1024
_CP1252_MARGIN = 0.1
# C0 control bytes that never occur in text (tab, newlines, form feed and escape do).
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str  # Python codec name
    source: str  # "bom", "header", "meta", "detected", "fallback"


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    resolved = resolve_encoding(name)
    if not resolved:
        return None
    try:
        return codecs.lookup(resolved).name
    except LookupError:
        return None


def _strict(body: bytes, codec: str) -> str | None:
    try:
        return body.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _utf8_instead(body: bytes, codec: str) -> str | None:
    """UTF-8 text mislabelled as a western single-byte charset."""
    if codec.replace("-", "_") not in _SINGLE_BYTE_WESTERN or body.isascii():
        return None
    return _strict(body, "utf-8")


def _detect(sample: bytes) -> str | None:
    """Statistical detection; windows-1252 wins near-ties, as the web's default legacy charset.

    On short western text the detector cannot tell the single-byte Latin code pages apart (their
    "chaos" scores differ by a few hundredths); browsers fall back to windows-1252 there, and so
    do we when it is within ``_CP1252_MARGIN`` of the best guess.
    """
    matches = list(charset_normalizer.from_bytes(sample))
    if not matches:
        return None
    best = matches[0]
    for m in matches:
        if m.encoding == "cp1252" and m.chaos <= best.chaos + _CP1252_MARGIN:
            return "cp1252"
    return _codec(best.encoding) or best.encoding


def decode_html(body: bytes, content_type: str | None = None) -> Decoded:
    """Decode an HTML body; never raises."""
    bom_codec, bom = read_bom(body)
    if bom_codec:
        codec = _codec(bom_codec) or "utf-8"
        return Decoded(body[len(bom) :].decode(codec, errors="replace"), codec, "bom")

    for source, declared in (
        ("header", http_content_type_encoding(content_type or "")),
        ("meta", html_body_declared_encoding(body)),
    ):
        codec = _codec(declared)
        if codec is None:
            continue
        text = _strict(body, codec)
        if text is not None:
            utf8 = _utf8_instead(body, codec)
            if utf8 is not None:
                return Decoded(utf8, "utf-8", source + "+utf8")
            return Decoded(text, codec, source)

    text = _strict(body, "utf-8")
    if text is not None:
        return Decoded(text, "utf-8", "detected")
    codec = _detect(body[:_DETECT_BYTES])
    if codec is not None:
        return Decoded(body.decode(codec, errors="replace"), codec, "detected")
    return Decoded(body.decode("utf-8", errors="replace"), "utf-8", "fallback")


def looks_binary(body: bytes, sample: int = 4096) -> bool:
    """True for content that is not text whatever its Content-Type says."""
    head = body[:sample]
    if not head:
        return False
    if head.startswith((b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b")):
        return True
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    control = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return control / len(head) > 0.10
