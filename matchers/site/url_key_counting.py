"""Counting URL pairing keys: every key's URL pairs, read from signature groups.

Kit & Ng (URL pairing patterns, section 3) count a key's linking power by comparing every URL
pair.  Near-linear instead of the paper's O(L^2 |U|^2) pairwise loop (section 3): for every URL, field, position p and
span k <= max_span the URL gets the signature hash(context, tokens[:p], tokens[p+k:]); URLs with
equal signatures differ only in that slot, so a key's pairs are the pairs inside a signature group,
counted once, at the split that is the canonical difference.  A group with more than `max_group`
members is an identifier slot (ids, slugs, dates: /news/<id>.html), not a language slot; its pairs
(123:124 ...) are never enumerated, which bounds the work by O(|U| L max_span max_group).
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

Fields = tuple[tuple[str, ...], ...]
Side = tuple[str, ...]
KeyId = tuple[int, Side, Side]  # (field index, side a, side b) with side a <= side b

_K_BITS, _P_BITS, _F_BITS = 2, 8, 2  # packing of (url id, field, position, span) into one int
_MAX_POS = (1 << _P_BITS) - 1
MAX_SPAN = (1 << _K_BITS) - 1
PAIR_BITS = 32
_PAIR_BITS = PAIR_BITS
_LOW = (1 << PAIR_BITS) - 1


def add_signatures(sigs: array, entries: array, uid: int, fid: int, fields: Fields, max_span: int) -> None:
    """Append the URL's signatures for one field (one per position and span)."""
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
    base = (uid << _F_BITS | fid) << _P_BITS
    for p in range(n + 1):
        for k in range(min(max_span, n - p) + 1):
            sigs.append(hash((pre[p], suf[p + k])))
            entries.append((base | p) << _K_BITS | k)


def count_key_pairs(sig_array: array, entry_array: array, fields: Sequence[Fields],
                    max_group: int) -> dict[KeyId, list[int]]:
    """Pairs of every key, read from the signature groups (module docstring).
    A pair is one int, (id of the URL with side a) << 32 | (id of the URL with side b): plain
    ints are not tracked by the garbage collector, which otherwise dominates at 100k URLs.
    Signatures are 64-bit hashes; a collision (odds ~1e-7 at 100k URLs) adds at most a key of
    power 1, which min_power ignores."""
    if not sig_array:
        return {}
    sigs = np.frombuffer(sig_array, dtype=np.int64)
    entries = np.frombuffer(entry_array, dtype=np.int64)
    order = np.argsort(sigs, kind="stable")
    s = sigs[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    sizes = np.diff(np.r_[starts, len(s)])
    keep = (sizes >= 2) & (sizes <= max_group)
    flat = entries[order[np.repeat(keep, sizes)]].tolist()  # the kept groups, one after another
    kmask, pmask, fmask = (1 << _K_BITS) - 1, (1 << _P_BITS) - 1, (1 << _F_BITS) - 1
    # Middles are interned to ints so that the inner loop hashes ints, not tuples of strings.
    mid_ids: dict[tuple[int, Side], int] = {}
    mids: list[tuple[int, Side]] = []
    raw: dict[int, list[int]] = defaultdict(list)
    start = 0
    for size in sizes[keep].tolist():
        members = []
        for e in flat[start:start + size]:
            k, p = e & kmask, (e >> _K_BITS) & pmask
            fid, uid = (e >> (_K_BITS + _P_BITS)) & fmask, e >> (_K_BITS + _P_BITS + _F_BITS)
            toks = fields[uid][fid]
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
    out: dict[KeyId, list[int]] = {}
    for packed, pairs in raw.items():
        (fid, a), (_, b) = mids[packed >> _PAIR_BITS], mids[packed & _LOW]
        if a > b:  # orient every key the same way: side a is the smaller token tuple
            a, b = b, a
            pairs = [(ab & _LOW) << _PAIR_BITS | ab >> _PAIR_BITS for ab in pairs]
        key = (fid, a, b)
        if key in out:
            out[key].extend(pairs)
        else:
            out[key] = pairs
    return out
