"""URL pairing keys: find translated pages by the way their URLs differ.

Kit & Ng, "An Intelligent Web Agent to Mine Bilingual Parallel Pages via Automatic Discovery of URL
Pairing Patterns".  Section 2: a URL has the fields protocol, host, path and file, each cut into tokens
at punctuation; a key <t, t'> matches the URL pair <u, u'> when u - t = u' - t' (one side may be the
null token); its *linking power* is the number of URL pairs it matches.  Section 3: tokens of the path
(set P) and of the file name (set F) are used separately, keys are read off the URL pairs that share
all but one token, and the output is the competitive union (eq. 3) of the pairs of every key whose
power reaches a threshold: a stronger key keeps its URLs.  Section 4: threshold 1/10 of the site's
URLs; weak keys such as "06e:06c" are lost although they share the strong pattern "e:c".  Section 5
(future work) is what the "beyond the paper" parts below implement.

Tokenization (`tokenize_url`):
  * protocol dropped (http and https copies of a page are the same page);
  * host lower-cased and tokenized, kept as *context*: two URLs pair only on the same host, unless
    `host_keys=True` lets a key sit in the host (en.example.org : fr.example.org);
  * the path is percent-decoded and cut at its last "/": the directory gives the path tokens (set
    P), the rest the file tokens (set F); the extension stays as the last file token, because
    with hashed signatures it costs nothing and keeps "a.htm" and "a.html" apart (the paper only
    dropped "htm"/"html" to shorten its O(L^2 |U|^2) loop);
  * the query string is a fourth field, tokenized the same way ("lang=fr&id=3" -> lang fr id 3):
    "?lang=en" / "?lang=fr" is how many sites pair pages today; the fragment is dropped;
  * a token is a maximal run of letters and digits: any other character (":/.-_" in the paper,
    and also "?=&~+% ...") separates tokens.  Runs are *not* split at letter/digit boundaries: the
    paper's keys "1e:1c", "06e:06c", "12e:12c", "eng:b5", "big5" are single tokens, which is why
    its weak keys exist at all; the common digits are removed at key level instead (affix
    generalization below).  Case is kept (the paper lists "EN:TC" apart from "en:tc").

Keys.  The difference of a URL pair is canonical: strip the longest common prefix of the two token
sequences of one field, then the longest common suffix of what is left; if all other fields are
equal and the two middles are at most `max_span` tokens each (one may be empty: the null token),
the middles are the key.  Multi-token sides follow the paper's own table ("tc_chi", "eng_text",
"big5_text") and cover codes such as "zh-hans" against "en" or "en-us" against "fr-fr".  Keys are per
field (no cross-field linkage, section 2).  A key is unordered: its sides are kept in sorted order,
so the text is "en:fr", "c:e" (not "e:c"), "(null):chinese"; multi-token sides are joined by "-".

Counting (near-linear instead of the paper's pairwise loop): for every URL, field, position p and
span k <= max_span the URL gets the signature hash(context, tokens[:p], tokens[p+k:]); URLs with
equal signatures differ only in that slot, so a key's pairs are the pairs inside a signature group,
counted once, at the split that is the canonical difference.  A group with more than `max_group`
members is an identifier slot (ids, slugs, dates: /news/<id>.html), not a language slot; its pairs
(123:124 ...) are never enumerated, which bounds the work by O(|U| L max_span max_group).

Acceptance.  tau = max(min_power, min_power_share * |U|) (paper: 1/10 of the site's URLs; a key
qualifies when its power is >= tau).  Only keys of power >= min_power take part at all, also as
members below: a pair seen once is no pattern (and 3fa:3fb in a hex-id slot stays out).
  (a) affix generalization (future work 1): a key of two single tokens is reduced to its pattern by
      stripping their longest common prefix, then suffix, of characters: 06e:06c, 07e:07c and
      1e:1c -> c:e; hko:chko -> (null):c.  A residue must contain a letter (page1:page2 -> 1:2 is
      an id, not a language).  Keys with the same pattern, at least two of them, form a generalized
      key whose power is the sum of its members' (a plain key equal to the pattern, c:e itself or a
      null key, is a member); when the sum reaches tau the generalized key is accepted with all its
      members, however weak each one is.
  (b) token families (future work 4, multilingual sites): a site in K languages splits its pairs
      over K(K-1)/2 keys (en:fr, de:fr, ...) of about |U|/K pairs each, so for K > 10 no single
      key reaches the paper's bilingual threshold.  Keys of one field that share a side form a
      family (union-find over sides; null sides join nothing); a family of at least two keys whose
      summed power reaches tau is accepted as one generalized key.
  (c) any other key is accepted alone when its power reaches tau.
  Keys not accepted are *shadows*: they compete (below) but none of their pairs is output.

Competition (competitive union, eq. 3, plus future work 2).  Keys are processed in decreasing
power: an affix key's members all at the affix key's summed power (so 06e:06c is as strong as c:e),
a family's members and every other key at their own power (ranking family members at the family's
sum would let a family of slug keys, about:contact ..., outrank the language keys of the same site;
the family only lifts its members over the threshold).  Ties: field, then pattern text, then the
key's token tuples; a key's pairs are taken in URL order, so the result does not depend on the order
of `add` calls.  Every URL has a *label*, its language: the given `lang` when known, otherwise the
key side it carries in the first (strongest) key that pairs it -- the pattern side ("e") for an
affix member; shadows label URLs too.  A candidate pair is rejected when
  * both URLs have the same label (same language: a false key such as htm:html, (null):print, or
    a slug key alpha:beta linking two pages already labelled "en"), or
  * one URL already has a partner with the other's label (a stronger key keeps its URLs; this is
    the paper's one-match-per-URL constraint, taken per language so a page of a multilingual site
    may pair once with each other language: one pair per URL per language pair).
A key whose rejected pairs are more than `max_reject_share` of its pairs is a false key and is
dropped whole: none of its pairs is kept and it labels no URL; otherwise its surviving pairs are
added (and, for a shadow, only claim their URLs).  Shadows ranked after the last accepted key cannot
change anything and are skipped.  Without languages, a key that pairs unlabelled copies of a page
(/en/print/x.html) still looks like a third language, as in the paper; with them it is dropped.

Score of a pair (`key_score`): power / (power + tau) of the accepted key that linked it in the union
(for a family or affix key the summed power; 0.5 at the threshold, towards 1 as the key dominates
the site), 0 for pairs not in the union.  `UrlKeyIndex` reads reflect the last `recompute()`; call
it every N additions while crawling (benchmarks/url_keys_eval.py --timing measures it).
"""

from __future__ import annotations

import re
from array import array
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

import numpy as np

FIELDS = ("host", "path", "file", "query")
_TOKEN = re.compile(r"[^\W_]+")
_K_BITS, _P_BITS, _F_BITS = 2, 8, 2  # packing of (url id, field, position, span) into one int
_MAX_POS = (1 << _P_BITS) - 1
_PAIR_BITS = 32
_LOW = (1 << _PAIR_BITS) - 1

Side = tuple[str, ...]
KeyId = tuple[int, Side, Side]  # (field index, side a, side b) with side a <= side b


@dataclass(frozen=True)
class UrlTokens:
    """Token sequences of the four fields of a URL (protocol and fragment are dropped)."""

    host: tuple[str, ...]
    path: tuple[str, ...]
    file: tuple[str, ...]
    query: tuple[str, ...]

    def fields(self) -> tuple[tuple[str, ...], ...]:
        return (self.host, self.path, self.file, self.query)


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text))


def tokenize_url(url: str) -> UrlTokens:
    """Split a URL into host, path, file and query tokens (see the module docstring)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2].lower()
    directory, _, file = unquote(parts.path).rpartition("/")
    return UrlTokens(_tokens(host), _tokens(directory), _tokens(file), _tokens(unquote(parts.query)))


@dataclass(frozen=True)
class UrlKey:
    """A pairing key.  `t1`/`t2` are its sides ("" is the null token); for a family both are the
    "|"-joined sides of its members.  `kind` is "token" (plain), "affix" or "family"."""

    t1: str
    t2: str
    power: int
    generalized: bool = False
    members: tuple[UrlKey, ...] = ()
    field: str = "file"
    kind: str = "token"

    @property
    def text(self) -> str:
        if self.kind == "family":
            return "{" + self.t1 + "}"
        return f"{self.t1 or '(null)'}:{self.t2 or '(null)'}"


class KeyRow(NamedTuple):
    key: str
    power: int
    generalized: bool
    example: tuple[str, str]
    field: str


class RejectedKey(NamedTuple):
    key: UrlKey
    reason: str  # "same-language" or "conflict"
    rejected_share: float


def _side_text(side: Side) -> str:
    return "-".join(side)


def _affix_pattern(a: str, b: str) -> tuple[str, str] | None:
    """Strip the common prefix then the common suffix of two tokens; None when nothing is stripped
    or a residue has no letter (a numeric residue is an id difference, not a language)."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    ra, rb = a[n:], b[n:]
    m = 0
    while m < min(len(ra), len(rb)) and ra[-1 - m] == rb[-1 - m]:
        m += 1
    ra, rb = ra[: len(ra) - m], rb[: len(rb) - m]
    if (ra, rb) == (a, b) or not all(r == "" or any(c.isalpha() for c in r) for r in (ra, rb)):
        return None
    return ra, rb


class _Unit(NamedTuple):
    """One plain key inside an accepted key, as it enters the competition."""

    rank: tuple[int, int, str, int, KeyId]  # processing order
    kid: KeyId
    side_a: str  # label of side a when the URL has no language (the pattern side for affix keys)
    side_b: str
    accepted: UrlKey | None  # the accepted key the pairs are reported under; None: a shadow key


class UrlKeyIndex:
    """Incremental URL-key matcher for one site.  `add` URLs as they are crawled, `recompute()` now
    and then; `keys()`, `pairs()`, `key_score()` and `rows()` read the last recompute."""

    def __init__(self, min_power_share: float = 0.1, min_power: int = 2, max_span: int = 2,
                 max_group: int = 64, max_reject_share: float = 0.5, host_keys: bool = False,
                 generalize: bool = True, families: bool = True) -> None:
        if not 1 <= max_span < (1 << _K_BITS):
            raise ValueError(f"max_span must be in 1..{(1 << _K_BITS) - 1}")
        self.min_power_share = min_power_share
        self.min_power = min_power
        self.max_span = max_span
        self.max_group = max_group
        self.max_reject_share = max_reject_share
        self.generalize = generalize
        self.families = families
        self._key_fields = (0, 1, 2, 3) if host_keys else (1, 2, 3)
        self._urls: list[str] = []
        self._ids: dict[str, int] = {}
        self._langs: list[str | None] = []
        self._fields: list[tuple[tuple[str, ...], ...]] = []
        self._sigs = array("q")
        self._entries = array("q")
        self._clear_results()

    def _clear_results(self) -> None:
        self._tau = float(self.min_power)
        self._power: dict[KeyId, int] = {}  # every plain key counted
        self._keys: list[UrlKey] = []  # accepted keys by index, in first-accepted order
        self._accepted: list[UrlKey] = []  # the same, strongest first
        self._rejected: list[RejectedKey] = []
        self._pairs: list[int] = []  # packed pairs of the union, in acceptance order
        self._pair_key: dict[int, int] = {}  # packed pair (both orders) -> index in _keys

    def __len__(self) -> int:
        return len(self._urls)

    # -- building -------------------------------------------------------------------------------

    def add(self, url: str, lang: str | None = None) -> None:
        """Register a URL (and its language if known).  A URL added twice keeps its first
        registration, except that a language given later fills in a missing one."""
        uid = self._ids.get(url)
        if uid is not None:
            if self._langs[uid] is None:
                self._langs[uid] = lang
            return
        uid = len(self._urls)
        self._ids[url] = uid
        self._urls.append(url)
        self._langs.append(lang)
        fields = tokenize_url(url).fields()
        self._fields.append(fields)
        for fid in self._key_fields:
            self._add_signatures(uid, fid, fields)

    def _add_signatures(self, uid: int, fid: int, fields: tuple[tuple[str, ...], ...]) -> None:
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
            for k in range(min(self.max_span, n - p) + 1):
                self._sigs.append(hash((pre[p], suf[p + k])))
                self._entries.append((base | p) << _K_BITS | k)

    @classmethod
    def from_urls(cls, urls: Iterable[str | tuple[str, str | None]], **params: object) -> UrlKeyIndex:
        """Batch construction: URLs or (url, lang) tuples, then one recompute."""
        index = cls(**params)  # type: ignore[arg-type]
        for item in urls:
            if isinstance(item, str):
                index.add(item)
            else:
                index.add(item[0], item[1])
        index.recompute()
        return index

    def threshold(self) -> float:
        return max(float(self.min_power), self.min_power_share * len(self._urls))

    # -- counting -------------------------------------------------------------------------------

    def _count(self) -> dict[KeyId, list[int]]:
        """Pairs of every key, read from the signature groups (module docstring, "Counting").
        A pair is one int, (id of the URL with side a) << 32 | (id of the URL with side b): plain
        ints are not tracked by the garbage collector, which otherwise dominates at 100k URLs.
        Signatures are 64-bit hashes; a collision (odds ~1e-7 at 100k URLs) adds at most a key of
        power 1, which min_power ignores."""
        if not self._sigs:
            return {}
        sigs = np.frombuffer(self._sigs, dtype=np.int64)
        entries = np.frombuffer(self._entries, dtype=np.int64)
        order = np.argsort(sigs, kind="stable")
        s = sigs[order]
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        sizes = np.diff(np.r_[starts, len(s)])
        keep = (sizes >= 2) & (sizes <= self.max_group)
        flat = entries[order[np.repeat(keep, sizes)]].tolist()  # the kept groups, one after another
        fields = self._fields
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

    # -- acceptance -----------------------------------------------------------------------------

    def _plain(self, kid: KeyId, power: int) -> UrlKey:
        return UrlKey(_side_text(kid[1]), _side_text(kid[2]), power, field=FIELDS[kid[0]])

    def _units(self, power: dict[KeyId, int], tau: float) -> list[_Unit]:
        """Accepted keys (module docstring (a)-(c)) unrolled into their plain keys, plus the
        shadow keys that come before the last of them, in the order they compete."""
        # A key seen fewer than min_power times is not a pattern at all: this also keeps id
        # differences (3fa:3fb in a hex-id slot) out of the affix generalization.
        power = {kid: p for kid, p in power.items() if p >= self.min_power}
        units: list[_Unit] = []
        absorbed: set[KeyId] = set()
        if self.generalize:
            patterns: dict[tuple[int, str, str], list[tuple[KeyId, bool]]] = defaultdict(list)
            for kid in power:
                fid, a, b = kid
                if len(a) > 1 or len(b) > 1:
                    continue
                ta, tb = _side_text(a), _side_text(b)
                pat = _affix_pattern(ta, tb) if ta and tb else None
                ra, rb = pat if pat else (ta, tb)
                flipped = rb < ra
                patterns[(fid, rb, ra) if flipped else (fid, ra, rb)].append((kid, flipped))
            for (fid, ra, rb), mem in patterns.items():
                if len(mem) < 2:
                    continue
                total = sum(power[kid] for kid, _ in mem)
                if total < tau:
                    continue
                mem.sort(key=lambda m: (-power[m[0]], m[0]))
                key = UrlKey(ra, rb, total, True, tuple(self._plain(k, power[k]) for k, _ in mem),
                             FIELDS[fid], "affix")
                for kid, flipped in mem:
                    sa, sb = (rb, ra) if flipped else (ra, rb)
                    units.append(_Unit((-total, fid, key.text, -power[kid], kid), kid, sa, sb, key))
                absorbed.update(k for k, _ in mem)
        rest = [kid for kid in power if kid not in absorbed]
        if self.families:
            node_ids: dict[tuple[int, Side], int] = {}
            parent: list[int] = []

            def node(x: tuple[int, Side]) -> int:
                i = node_ids.get(x)
                if i is None:
                    i = node_ids[x] = len(parent)
                    parent.append(i)
                return i

            def find(i: int) -> int:
                while parent[i] != i:
                    parent[i] = parent[parent[i]]
                    i = parent[i]
                return i

            edges = [(kid, node((kid[0], kid[1])), node((kid[0], kid[2]))) for kid in rest if kid[1]]
            for _, x, y in edges:
                rx, ry = find(x), find(y)
                if rx != ry:
                    parent[rx] = ry
            fams: dict[int, list[KeyId]] = defaultdict(list)
            for kid, x, _ in edges:
                fams[find(x)].append(kid)
            for mem in fams.values():
                if len(mem) < 2:
                    continue
                total = sum(power[kid] for kid in mem)
                if total < tau:
                    continue
                mem.sort(key=lambda k: (-power[k], k))
                text = "|".join(sorted({_side_text(s) for kid in mem for s in kid[1:]}))
                key = UrlKey(text, text, total, True, tuple(self._plain(k, power[k]) for k in mem),
                             FIELDS[mem[0][0]], "family")
                # Members compete at their own power: the family only lifts them over the threshold.
                # Ranking them at the summed power would let a family of slug keys (about:contact,
                # ...) outrank the language keys of the same site.
                for kid in mem:
                    units.append(_Unit((-power[kid], kid[0], "", 0, kid), kid,
                                       _side_text(kid[1]), _side_text(kid[2]), key))
                absorbed.update(mem)
        shadows = []
        for kid in rest:
            if kid in absorbed:
                continue
            if power[kid] >= tau:
                key = self._plain(kid, power[kid])
                units.append(_Unit((-power[kid], kid[0], "", 0, kid), kid, key.t1, key.t2, key))
            else:
                shadows.append(kid)
        if not units:
            return []
        # Below the threshold a key is a shadow: it still labels and claims its URLs, so a weaker
        # accepted key cannot take them, but none of its pairs is output.  Shadows ranked after
        # the last accepted key can no longer change anything and are left out.
        last = max(u.rank for u in units)
        for kid in shadows:
            rank = (-power[kid], kid[0], "", 0, kid)
            if rank < last:
                units.append(_Unit(rank, kid, _side_text(kid[1]), _side_text(kid[2]), None))
        units.sort(key=lambda u: u.rank)
        return units

    # -- competition ----------------------------------------------------------------------------

    def recompute(self) -> None:
        """Recount keys over all URLs added so far and rebuild the competitive union."""
        self._clear_results()
        tau = self._tau = self.threshold()
        key_pairs = self._count()
        urls = self._urls
        n = len(urls)
        rank = [0] * n
        for r, uid in enumerate(sorted(range(n), key=urls.__getitem__)):
            rank[uid] = r
        # Labels are interned to small ints so that a slot (URL, partner's label) is one int.
        label_ids: dict[tuple[str, str], int] = {}
        labels = [-1 if lang is None else label_ids.setdefault(("lang", lang), len(label_ids))
                  for lang in self._langs]
        slots: set[int] = set()
        key_index: dict[UrlKey, int] = {}
        self._power = {kid: len(v) for kid, v in key_pairs.items()}
        for unit in self._units(self._power, tau):
            pairs = sorted(key_pairs[unit.kid], key=lambda ab: rank[ab >> _PAIR_BITS] * n + rank[ab & _LOW])
            side_a = label_ids.setdefault(("key", unit.side_a), len(label_ids))
            side_b = label_ids.setdefault(("key", unit.side_b), len(label_ids))
            new_labels: dict[int, int] = {}
            new_slots: set[int] = set()
            kept: list[int] = []
            same = conflict = 0
            for ab in pairs:
                a, b = ab >> _PAIR_BITS, ab & _LOW
                la = labels[a] if labels[a] >= 0 else new_labels.get(a, side_a)
                lb = labels[b] if labels[b] >= 0 else new_labels.get(b, side_b)
                if la == lb:
                    same += 1
                    continue
                sa, sb = a << _PAIR_BITS | lb, b << _PAIR_BITS | la
                if sa in slots or sb in slots or sa in new_slots or sb in new_slots:
                    conflict += 1
                    continue
                new_slots.add(sa)
                new_slots.add(sb)
                new_labels[a], new_labels[b] = la, lb
                kept.append(ab)
            rejected = same + conflict
            if rejected > self.max_reject_share * len(pairs):
                if unit.accepted is not None:
                    reason = "same-language" if same >= conflict else "conflict"
                    self._rejected.append(RejectedKey(self._plain(unit.kid, len(pairs)), reason,
                                                      rejected / len(pairs)))
                continue
            slots |= new_slots
            for uid, lab in new_labels.items():
                if labels[uid] < 0:
                    labels[uid] = lab
            if not kept or unit.accepted is None:
                continue
            ki = key_index.setdefault(unit.accepted, len(key_index))
            for ab in kept:
                self._pairs.append(ab)
                self._pair_key[ab] = ki
                self._pair_key[(ab & _LOW) << _PAIR_BITS | ab >> _PAIR_BITS] = ki
        self._keys = list(key_index)
        self._accepted = sorted(key_index, key=lambda k: (-k.power, k.field, k.text))

    # -- reading --------------------------------------------------------------------------------

    def keys(self) -> list[UrlKey]:
        """Accepted keys (those contributing pairs to the union), strongest first."""
        return list(self._accepted)

    def candidate_keys(self, min_power: int = 1) -> list[UrlKey]:
        """Every plain key counted, with its linking power, strongest first (ties: field, text)."""
        keys = [self._plain(kid, p) for kid, p in self._power.items() if p >= min_power]
        return sorted(keys, key=lambda k: (-k.power, k.field, k.text))

    def rejected_keys(self) -> list[RejectedKey]:
        """Keys in competition (above the threshold, or members of an accepted generalized key)
        that were dropped as false keys, in the order they were tried."""
        return list(self._rejected)

    def pairs(self) -> list[tuple[str, str, UrlKey]]:
        """The competitive union: (URL with side t1, URL with side t2, accepted key), in the order
        the pairs were accepted (strongest key first).  For a family key the sides are those of
        the member key that linked the pair."""
        urls = self._urls
        return [(urls[ab >> _PAIR_BITS], urls[ab & _LOW], self._keys[self._pair_key[ab]]) for ab in self._pairs]

    def key_score(self, url_a: str, url_b: str) -> float:
        """power / (power + tau) of the accepted key that paired the two URLs, else 0."""
        a, b = self._ids.get(url_a), self._ids.get(url_b)
        if a is None or b is None:
            return 0.0
        ki = self._pair_key.get(a << _PAIR_BITS | b)
        if ki is None:
            return 0.0
        power = self._keys[ki].power
        return power / (power + self._tau)

    def rows(self) -> list[KeyRow]:
        """One export row per accepted key: text, power, generalized, an example pair, field."""
        urls = self._urls
        first: dict[int, tuple[str, str]] = {}
        for ab in self._pairs:
            first.setdefault(self._pair_key[ab], (urls[ab >> _PAIR_BITS], urls[ab & _LOW]))
        index = {key: ki for ki, key in enumerate(self._keys)}
        return [KeyRow(k.text, k.power, k.generalized, first[index[k]], k.field) for k in self._accepted]
