"""Texts that are not a translation of each other whatever else says so.

Bicleaner's hard rules (bicleaner-hardrules: ``c_identical``, ``c_identical_wo_digits``,
``c_identical_wo_punct``, all case-insensitive, and its rejection of URLs) discard a sentence pair
whose two sides are the same text, or the same once digits, punctuation or URLs are left out: an
untranslated sentence, a number, a date, a product code.  The same rule holds for two pages:
pages whose main text is the same in both "languages" (a template that only shows an item label
and a number, an untranslated page under another language's path) are never a translation pair,
however alike their URLs and markup.

:func:`text_key` is what remains of a text once case, digits, URLs, punctuation and spacing are
left out; two texts with the same key are the same text for these rules.  A text with an empty
key (only numbers and punctuation) is the same as any other such text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

_URL = re.compile(r"(?:https?://|www\.)\S+|[^\s@]+@[^\s@]+\.\w+", re.IGNORECASE)


_NOT_LETTERS = re.compile(r"[\W\d_]+")


def _letters(text: str) -> str:
    # Letters only (every script): digits, punctuation, symbols, marks and spaces are dropped.
    return _NOT_LETTERS.sub("", text)


def identity_letters(text: str) -> str:
    """What the rules above keep of ``text``: its letters, case-folded, URLs left out."""
    if "@" in text or "://" in text or "www." in text:
        text = _URL.sub(" ", text)
    return _letters(text.casefold())


# The length of every :func:`text_key` (an MD5 digest).
TEXT_KEY_BYTES = hashlib.md5().digest_size


def text_key(texts: str | Iterable[str]) -> bytes:
    """A ``TEXT_KEY_BYTES``-byte key of ``texts`` (one text, or a page's sentences in order) under the rules above."""
    if isinstance(texts, str):
        texts = (texts,)
    return letters_key(identity_letters(text) for text in texts)


def letters_key(parts: Iterable[str]) -> bytes:
    """:func:`text_key` of texts given by their :func:`identity_letters`, in order (the key of a
    text is that of its parts' letters put end to end)."""
    h = hashlib.md5()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
    return h.digest()


def same_text(a: str | Iterable[str], b: str | Iterable[str]) -> bool:
    """Whether ``a`` and ``b`` are the same text but for case, digits, URLs and punctuation."""
    return text_key(a) == text_key(b)
