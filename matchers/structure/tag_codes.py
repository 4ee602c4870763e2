"""Two-byte codes for the tokens of a site's tag sequences.

:mod:`matchers.page.linearize` writes a tag as a negative int32 derived from a CRC of its name
(stable across processes and crawls, which is what the database keeps) and a text chunk as its
word count (1 to ``TEXT_CAP``).  The edit distance of *WebMining* section 2.2 only asks of two
tags whether they are equal, and of two texts how far apart their counts are
(:mod:`matchers.structure.edit_distance`).  A site uses a few hundred tag names, so numbering
them in the order they turn up, ``-1, -2, ...``, and keeping text counts as they are, fits every
token in an int16 and changes no distance: the stored sequences of a site, most of its
structure filter's memory, take half the space.

One :class:`TagCodes` serves all languages of a site, since the decision compares sequences
across them.  A query that brings a tag the site has never stored gets :data:`UNSEEN`, which no
stored token equals, so its distances are exact as well.  Past :data:`MAX_TAGS` distinct names (a
site generating element names) the later ones share :data:`OVERFLOW`: they compare equal to one
another, which can only lower a distance.
"""

from __future__ import annotations

import threading

import numpy as np

from matchers.page.linearize import TEXT_CAP

UNSEEN = -32768  # a query's tag that no stored sequence has
OVERFLOW = -32767  # every stored tag name past the first MAX_TAGS
MAX_TAGS = 32766
assert np.iinfo(np.int16).max >= TEXT_CAP


class TagCodes:
    """A site's numbering of tag codes (thread-safe: pages are added on the reactor's thread while
    the structure filter's thread encodes queries)."""

    def __init__(self) -> None:
        self._codes: dict[int, int] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._codes)

    def encode(self, tokens: np.ndarray, *, assign: bool = True) -> np.ndarray:
        """``tokens`` (linearize's int32 codes) as int16; tags first seen here get the next code
        when ``assign`` (a stored sequence), :data:`UNSEEN` otherwise (a query)."""
        tokens = np.asarray(tokens)
        out = np.minimum(tokens, TEXT_CAP).astype(np.int16)
        is_tag = tokens < 0
        if not is_tag.any():
            return out
        names, where = np.unique(tokens[is_tag], return_inverse=True)
        codes = np.empty(len(names), np.int16)
        with self._lock:
            table = self._codes
            for k, name in enumerate(names.tolist()):
                code = table.get(name)
                if code is None:
                    if not assign:
                        code = UNSEEN
                    elif len(table) < MAX_TAGS:
                        code = table[name] = -1 - len(table)
                    else:
                        code = OVERFLOW
                codes[k] = code
        out[is_tag] = codes[where]
        return out


class Encoded(TagCodes):
    """Tokens that are already a site's codes (the structure worker's copy of the crawl
    process's sequences): checked and kept as they are."""

    def encode(self, tokens: np.ndarray, *, assign: bool = True) -> np.ndarray:
        tokens = np.asarray(tokens)
        if tokens.size and (tokens.min() < UNSEEN or tokens.max() > TEXT_CAP):
            raise ValueError("not a site's tag codes (linearize's int32 codes need TagCodes)")
        return tokens.astype(np.int16, copy=False)
