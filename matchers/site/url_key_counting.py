"""Counting URL pairing keys: every key's URL pairs, read from signature groups, and the table of
a site's URLs that the counting reads (`UrlTable`).

Kit & Ng (URL pairing patterns, section 3) count a key's linking power by comparing every URL
pair.  Near-linear instead of the paper's O(L^2 |U|^2) pairwise loop (section 3): for every URL, field, position p and
span k <= max_span the URL gets the signature hash(context, tokens[:p], tokens[p+k:]); URLs with
equal signatures differ only in that slot, so a key's pairs are the pairs inside a signature group,
counted once, at the split that is the canonical difference.  A group with more than `max_group`
members is an identifier slot (ids, slugs, dates: /news/<id>.html), not a language slot; its pairs
(123:124 ...) are never enumerated, which bounds the work by O(|U| L max_span max_group).
"""

from __future__ import annotations

import functools
import itertools
import sys
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from matchers.site.url_canonical import canonical_url

Fields = tuple[tuple[str, ...], ...]
Side = tuple[str, ...]
KeyId = tuple[int, Side, Side]  # (field index, side a, side b) with side a <= side b

_K_BITS, _P_BITS, _F_BITS = 2, 8, 2  # packing of (url id, field, position, span) into one int
_MAX_POS = (1 << _P_BITS) - 1
MAX_SPAN = (1 << _K_BITS) - 1
PAIR_BITS = 32
_PAIR_BITS = PAIR_BITS
_LOW = (1 << PAIR_BITS) - 1
_KEY_F_BITS, _SIDE_BITS = 3, 30  # packing of a counted key: (side a id, side b id, field)


class UrlTable:
    """The pages of one site as counting reads them, kept as long as the site is crawled: each
    page's first URL, its field tokens (``columns[fid][uid]``: one list per field, not a tuple per
    page) and its signatures.  Tokens are interned and equal field values share one tuple: a
    site's URLs share their host, their directories and most of their words.  Canonical forms are
    not kept (~100 bytes a page): a page is found by its form's hash, confirmed by recomputing the
    form of its first URL, which only an alias of the page has to do.  Nor is the slot (page,
    field, position, span) of each signature: it follows from the order the signatures are written
    in and the number of tokens of each field (`_entries_at`)."""

    __slots__ = ("_by_form", "_collided", "_key_fields", "_lens", "_max_span", "_pool", "columns", "sigs",
                 "urls")

    def __init__(self, key_fields: Sequence[int], max_span: int) -> None:
        self._key_fields = tuple(key_fields)
        self._max_span = max_span
        self.urls: list[str] = []
        self.columns: tuple[list[tuple[str, ...]], ...] = ([], [], [], [])
        self._by_form: dict[int, int] = {}  # hash of a canonical form -> page id
        self._collided: dict[str, int] = {}  # canonical form -> page id, when its hash was taken
        self._pool: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.sigs = array("q")
        self._lens = bytearray()  # signed tokens of every (page, key field), in signature order

    def __len__(self) -> int:
        return len(self.urls)

    def __getstate__(self) -> dict[str, object]:
        # hash() of a str is salted per process: the forms' index is rebuilt where a copy is loaded.
        return {name: getattr(self, name) for name in self.__slots__ if name not in ("_by_form", "_collided")}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._by_form, self._collided = {}, {}
        for uid, url in enumerate(self.urls):
            form = canonical_url(url)
            if self._by_form.setdefault(hash(form), uid) != uid:
                self._collided[form] = uid

    def page(self, form: str) -> int | None:
        """The page whose canonical form is ``form``, if one was added."""
        uid = self._by_form.get(hash(form))
        if uid is not None and canonical_url(self.urls[uid]) != form:
            return self._collided.get(form)
        return uid

    def add(self, uid: int, url: str, form: str, tokens: Iterable[list[str]]) -> Fields:
        """Append page ``uid`` (the next id): its URL, canonical form and the tokens of the form's
        four fields; returns its pooled fields."""
        if self._by_form.setdefault(hash(form), uid) != uid:
            self._collided[form] = uid
        self.urls.append(url)
        pool = self._pool
        fields = []
        for field, column in zip(tokens, self.columns, strict=True):
            toks = tuple(field)
            pooled = pool.get(toks)
            if pooled is None:
                pooled = tuple(map(sys.intern, toks))
                pool[pooled] = pooled
            fields.append(pooled)
            column.append(pooled)
        url_fields = tuple(fields)
        for fid in self._key_fields:
            self._lens.append(add_signatures(self.sigs, fid, url_fields, self._max_span))
        return url_fields

    def rows(self, start: int = 0) -> Iterator[Fields]:
        """The fields of every page from ``start`` on, one tuple each."""
        return zip(*(itertools.islice(column, start, None) for column in self.columns), strict=True)

    def count(self, max_group: int) -> dict[KeyId, array]:
        return count_key_pairs(self.sigs, self._entries_at, self.columns, max_group)

    def _entries_at(self, positions: np.ndarray) -> np.ndarray:
        """The packed slots ((page, field, position, span), as `count_key_pairs` reads them) of the
        signatures at ``positions``."""
        starts, counts, slots = _slot_templates(self._max_span)
        lens = np.frombuffer(self._lens, dtype=np.uint8)
        ends = np.cumsum(counts[lens])
        seg = np.searchsorted(ends, positions, side="right")  # the (page, key field) of each
        seg_lens = lens[seg]
        slot = slots[starts[seg_lens] + positions - (ends[seg] - counts[seg_lens])]
        nf = len(self._key_fields)
        fids = np.array(self._key_fields, dtype=np.int64)[seg % nf]
        return ((seg // nf) << _F_BITS | fids) << (_P_BITS + _K_BITS) | slot


@functools.cache
def _slot_templates(max_span: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a field of n signed tokens (0..255), its signatures' slots p << 2 | k in the order
    `add_signatures` writes them: ``slots[starts[n]:starts[n] + counts[n]]``."""
    templates = [[p << _K_BITS | k for p in range(n + 1) for k in range(min(max_span, n - p) + 1)]
                 for n in range(_MAX_POS + 1)]
    counts = np.array([len(t) for t in templates], dtype=np.int64)
    starts = np.cumsum(counts) - counts
    return starts, counts, np.array([s for t in templates for s in t], dtype=np.int16)


def unordered_pair(ab: int) -> int:
    """A packed pair with its smaller id first: one entry serves both orientations."""
    a, b = ab >> _PAIR_BITS, ab & _LOW
    return ab if a < b else b << _PAIR_BITS | a


def add_signatures(sigs: array, fid: int, fields: Fields, max_span: int) -> int:
    """Append the URL's signatures for one field, one per position p and span k in the order
    `_slot_templates` gives; returns the number of tokens signed."""
    toks = fields[fid]
    n = min(len(toks), _MAX_POS)
    ctx = hash((fid, fields[:fid], fields[fid + 1:]))
    # Chained hashes make every prefix/suffix hash O(1) instead of hashing each slice.
    pre = [hash((ctx, "<"))]
    for t in toks[:n]:
        pre.append(hash((pre[-1], t)))
    suf = [0] * (n + 1)
    suf[n] = hash((">", toks[n:]))
    for q in range(n - 1, -1, -1):
        suf[q] = hash((toks[q], suf[q + 1]))
    for p in range(n + 1):
        for k in range(min(max_span, n - p) + 1):
            sigs.append(hash((pre[p], suf[p + k])))
    return n


def count_key_pairs(sig_array: array, entries_at: Callable[[np.ndarray], np.ndarray],
                    columns: Sequence[Sequence[tuple[str, ...]]], max_group: int) -> dict[KeyId, array]:
    """Pairs of every key, read from the signature groups (module docstring); ``entries_at``
    gives the packed slots of the signatures at some positions.
    A pair is one int, (id of the URL with side a) << 32 | (id of the URL with side b): plain
    ints are not tracked by the garbage collector, which otherwise dominates at 100k URLs.
    Signatures are 64-bit hashes; a collision (odds ~1e-7 at 100k URLs) adds at most a key of
    power 1, which min_power ignores."""
    if not sig_array:
        return {}
    sigs = np.frombuffer(sig_array, dtype=np.int64)
    order = np.argsort(sigs, kind="stable")
    s = sigs[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    sizes = np.diff(np.r_[starts, len(s)])
    keep = (sizes >= 2) & (sizes <= max_group)
    flat = entries_at(order[np.repeat(keep, sizes)]).tolist()  # the kept groups, one after another
    kmask, pmask, fmask = (1 << _K_BITS) - 1, (1 << _P_BITS) - 1, (1 << _F_BITS) - 1
    # Middles are interned to ints so that the inner loop hashes ints, not tuples of strings.
    mid_ids: dict[tuple[int, Side], int] = {}
    mids: list[tuple[int, Side]] = []
    # Pairs as 8-byte machine ints: at close on a large site they are millions, and a list holds
    # each as a 32-byte int object plus its 8-byte slot.
    raw: dict[int, array] = defaultdict(lambda: array("q"))
    start = 0
    for size in sizes[keep].tolist():
        members = []
        for e in flat[start:start + size]:
            k, p = e & kmask, (e >> _K_BITS) & pmask
            fid, uid = (e >> (_K_BITS + _P_BITS)) & fmask, e >> (_K_BITS + _P_BITS + _F_BITS)
            toks = columns[fid][uid]
            mid = toks[p:p + k]
            key = (fid, mid)
            m = mid_ids.get(key)
            if m is None:
                m = mid_ids[key] = len(mids)
                mids.append(key)
            members.append((uid, m, mid, toks[p + k] if p + k < len(toks) else None))
        for i, (ui, idi, mi, next_i) in enumerate(members):
            for uj, idj, mj, next_j in members[i + 1:]:
                if mi and mj:
                    # Not canonical when a common token could still be stripped.
                    if mi[0] == mj[0] or mi[-1] == mj[-1]:
                        continue
                elif mi:
                    if mi[0] == next_j:
                        continue
                elif mj:
                    if mj[0] == next_i:
                        continue
                else:
                    continue  # same tokens, URLs differ only in separators or protocol
                raw[idi << _PAIR_BITS | idj].append(ui << _PAIR_BITS | uj)
        start += size
    out: dict[KeyId, array] = {}
    for packed, pairs in raw.items():
        (fid, a), (_, b) = mids[packed >> _PAIR_BITS], mids[packed & _LOW]
        if a > b:  # orient every key the same way: side a is the smaller token tuple
            a, b = b, a
            ab = np.frombuffer(pairs, dtype=np.int64)
            pairs = array("q", ((ab & _LOW) << _PAIR_BITS | ab >> _PAIR_BITS).tobytes())
        key = (fid, a, b)
        if key in out:
            out[key].extend(pairs)
        else:
            out[key] = pairs
    return out


class CountedKeys:
    """Keys with their power (and, optionally, one more int each) as a recompute found them, kept
    for reading until the next one.  A key is one packed int over a table of the distinct sides:
    a site counts a few keys per URL, and as a dict of key tuples they cost about 100 bytes each."""

    __slots__ = ("_codes", "_powers", "_sides", "extra")

    def __init__(self, keys: Iterable[tuple[KeyId, int]] = (), extra: Iterable[int] = ()) -> None:
        side_ids: dict[Side, int] = {}
        codes, powers = array("q"), array("q")
        for (fid, a, b), p in keys:
            ia = side_ids.setdefault(a, len(side_ids))
            ib = side_ids.setdefault(b, len(side_ids))
            codes.append((ia << _SIDE_BITS | ib) << _KEY_F_BITS | fid)
            powers.append(p)
        self._codes, self._powers = codes, powers
        self._sides = tuple(side_ids)
        self.extra = array("q", extra)

    def __len__(self) -> int:
        return len(self._codes)

    def items(self) -> Iterator[tuple[KeyId, int]]:
        sides, side_mask, f_mask = self._sides, (1 << _SIDE_BITS) - 1, (1 << _KEY_F_BITS) - 1
        for code, p in zip(self._codes, self._powers, strict=True):
            a, b = sides[code >> (_SIDE_BITS + _KEY_F_BITS)], sides[code >> _KEY_F_BITS & side_mask]
            yield (code & f_mask, a, b), p
