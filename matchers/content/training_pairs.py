"""The sentence pairs a translation model is trained on, as word indices.

Tomás et al., *WebMining*, section 2.3: each page pair found parallel trains the language pair's
model on its aligned sentences (matchers.content.translation_model).  The pairs are taken from the
alignment's beads with sentences on both sides and a translation probability of at least the
training threshold, a bead's sentences concatenated.

A page's main content is kept as word indices (matchers.page.page_content), so the pairs are cut
out of those arrays and reach the model's vocabulary one distinct word at a time: a word list per
pair and a vocabulary lookup per token cost the crawl's thread far more than the E-step itself.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np

from matchers.content.token_ids import Encoded, encode

if TYPE_CHECKING:  # sentence_align imports the model, which imports this module
    from matchers.content.sentence_align import Bead

# numba caches compiled code next to the source file; a module imported from a zipped egg
# (a Scrapyd deployment) has none, so there it compiles once per process instead.
_CACHE = os.path.isfile(__file__)


@dataclass(frozen=True, slots=True)
class Side:
    """One language's side of a page pair's training pairs: the page's distinct words, each
    token's index into them (the pairs one after the other) and the pairs' token offsets."""

    words: Sequence[str]
    ids: np.ndarray
    offsets: np.ndarray


@dataclass(frozen=True, slots=True)
class TrainingPairs:
    """A page pair's training sentence pairs, in the model's language order."""

    first: Side
    second: Side

    def __len__(self) -> int:
        return len(self.first.offsets) - 1

    @classmethod
    def from_words(cls, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> TrainingPairs:
        """Pairs given as token lists; pairs with no token on either side are left out."""
        kept = [(list(a), list(b)) for a, b in pairs if len(a) or len(b)]
        sides = [encode([p[k] for p in kept]) for k in (0, 1)]
        return cls(*(Side(words, ids, off) for words, ids, off in sides))

    def word_pairs(self) -> list[tuple[list[str], list[str]]]:
        """The pairs as token lists (the form :meth:`from_words` takes)."""
        out: list[list[list[str]]] = []
        for side in (self.first, self.second):
            flat = [side.words[i] for i in side.ids.tolist()]
            off = side.offsets.tolist()
            out.append([flat[off[k]:off[k + 1]] for k in range(len(off) - 1)])
        return list(zip(out[0], out[1], strict=True))


def training_pairs(
    beads: Sequence[Bead],
    first: Encoded,
    second: Encoded,
    min_prob: float,
) -> TrainingPairs:
    """The pairs of the beads with sentences on both sides and ``prob >= min_prob``.  ``first``
    and ``second`` are the two pages' encoded tokens ``(words, ids, sentence offsets)``; a bead's
    sentences are consecutive, so each side of a pair is one slice of its page's tokens."""
    kept = [b for b in beads if b.src and b.tgt and b.prob >= min_prob]
    bounds = np.array([(b.src[0], b.src[-1] + 1, b.tgt[0], b.tgt[-1] + 1) for b in kept], np.int64).reshape(-1, 4)
    off1, off2 = np.asarray(first[2], np.int64), np.asarray(second[2], np.int64)
    starts1, ends1 = off1[bounds[:, 0]], off1[bounds[:, 1]]
    starts2, ends2 = off2[bounds[:, 2]], off2[bounds[:, 3]]
    some = (ends1 > starts1) | (ends2 > starts2)
    sides = []
    for (words, ids, _), starts, ends in ((first, starts1[some], ends1[some]), (second, starts2[some], ends2[some])):
        lengths = ends - starts
        offsets = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        sides.append(Side(words, _gather(np.asarray(ids, np.int64), starts, offsets), offsets))
    return TrainingPairs(*sides)


# The kernels below hold the GIL (no nogil): they run in the content filter's thread beside the
# busy reactor, and numpy's own loops over a page's tokens would let the GIL go and wait to have
# it back (docs/benchmarks.md (j)).

@numba.njit(cache=_CACHE)
def _gather(ids, starts, offsets):  # pragma: no cover - compiled
    # ids[starts[k]:starts[k] + offsets[k + 1] - offsets[k]], one range after the other.
    out = np.empty(offsets[-1], np.int64)
    for k in range(starts.size):
        for p in range(offsets[k + 1] - offsets[k]):
            out[offsets[k] + p] = ids[starts[k] + p]
    return out


@numba.njit(cache=_CACHE)
def _first_appearance(ids):  # pragma: no cover - compiled
    # The distinct values of ids (small non-negative integers) in the order they first occur.
    seen = np.zeros(ids.max() + 1, np.bool_)
    order = np.empty(ids.size, np.int64)
    n = 0
    for p in range(ids.size):
        if not seen[ids[p]]:
            seen[ids[p]] = True
            order[n] = ids[p]
            n += 1
    return order[:n].copy()


@numba.njit(cache=_CACHE)
def _remap_into(out, pos, ids, order, gids):  # pragma: no cover - compiled
    # out[pos + p] = gids[k] for the k with order[k] == ids[p].
    mapping = np.zeros(order.max() + 1, np.int64)
    for k in range(order.size):
        mapping[order[k]] = gids[k]
    for p in range(ids.size):
        out[pos + p] = mapping[ids[p]]


def vocabulary_ids(sides: Sequence[Side], index: dict[str, int], vocab: list[str]) -> np.ndarray:
    """Each token's index in a model's vocabulary, the sides' tokens one after the other; words
    not in it are appended in the order they first occur, as a lookup token by token would."""
    get = index.get
    out = np.empty(sum(len(side.ids) for side in sides), np.int64)
    pos = 0
    for side in sides:
        if not len(side.ids):
            continue
        local = np.asarray(side.ids, np.int64)
        order = _first_appearance(local)
        ids = [get(side.words[i], -1) for i in order.tolist()]
        for k, g in enumerate(ids):
            if g < 0:
                w = side.words[int(order[k])]
                g = ids[k] = index[w] = len(vocab)
                vocab.append(w)
        _remap_into(out, pos, local, order, np.array(ids, np.int64))
        pos += len(local)
    return out


def pair_offsets(sides: Sequence[Side]) -> np.ndarray:
    """The pairs' token offsets over the sides one after the other (as :func:`vocabulary_ids`)."""
    lengths = [np.diff(side.offsets) for side in sides]
    flat = np.concatenate(lengths) if lengths else np.zeros(0, np.int64)
    off = np.zeros(len(flat) + 1, np.int64)
    np.cumsum(flat, out=off[1:])
    return off
