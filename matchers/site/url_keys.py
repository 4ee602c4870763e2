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

URLs are counted in their canonical form (matchers.site.url_canonical): one page reached as
x.html and x.html?, with a session parameter, with or without www., or with its query parameters
in another order is one URL, reported under the first of its URLs that was added.

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

Counting: matchers.site.url_key_counting (near-linear instead of the paper's pairwise loop).

Acceptance.  tau = max(min_power, min_power_share * |U|) (paper: 1/10 of the site's URLs; a key
qualifies when its power is >= tau).  A key can never link more URLs than its smaller side has
(on a site with 3,000 French and 240 English pages, eng:fra stays under a tenth of the site), so a
plain key also qualifies when its power reaches its own threshold, max(min_side_power,
min_side_share * the number of URLs carrying its rarer side), if that is lower.  Only keys of power >= min_power take part at all, also as
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
      A key seen once whose two sides both belong to an accepted family joins it (gl:ja on a
      19-language site where one article exists in both).
  (c) any other key is accepted alone when its power reaches its threshold.
  (d) language markers (matchers.site.url_markers, with page languages): keys across fields,
      /german/x_de.html : /french/x_fr.html, and the home page /en : /fr whose code sits in the
      file field.  They compete after every single-field key and take the pairs those left.
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
A pair that a stronger key already linked is neither kept nor held against the key.  A key is a
false key when more than `max_reject_share` of its pairs join one language and more than pairing
its two sides' pages at random would (untranslated French pages under /en/ make a true key pair
some French pages with French ones, but no more than chance; htm:html pairs copies), or when
more than that share of its other pairs conflict (and at least `min_side_power` of them).  A false
key is dropped whole: none of its pairs is kept and it labels no URL; otherwise its surviving pairs are
added (and, for a shadow, only claim their URLs).  Shadows ranked after the last accepted key cannot
change anything and are skipped.  Without languages, a key that pairs unlabelled copies of a page
(/en/print/x.html) still looks like a third language, as in the paper; with them it is dropped.

Score of a pair (`key_score`): power / (power + threshold) of the accepted key that linked it in
the union (for a family or affix key the summed power and tau; for a plain key the threshold it
was accepted at; 0.5 at the threshold, towards 1 as the key dominates), 0 for pairs not in the
union.  `UrlKeyIndex` reads reflect the last `recompute()`; call
it every N additions while crawling (benchmarks/url_keys_eval.py --timing measures it).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from matchers.site.url_canonical import canonical_url
from matchers.site.url_key_counting import MAX_SPAN, CountedKeys, UrlTable, unordered_pair
from matchers.site.url_markers import StandaloneMasks, find_markers, marker_pairs

FIELDS = ("host", "path", "file", "query", "fields")  # "fields": a multi-field key (markers)
_MULTI = 4
_TOKEN = re.compile(r"[^\W_]+")
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


def _field_texts(url: str) -> tuple[str, str, str, str]:
    """The host, directory, file and query of a URL, each tokenized on its own."""
    parts = urlsplit(url)
    directory, _, file = unquote(parts.path).rpartition("/")
    return parts.netloc.rpartition("@")[2].lower(), directory, file, unquote(parts.query)


def tokenize_url(url: str) -> UrlTokens:
    """Split a URL into host, path, file and query tokens (see the module docstring)."""
    return UrlTokens(*(tuple(_TOKEN.findall(text)) for text in _field_texts(url)))


@dataclass(frozen=True, slots=True)  # slots: a site keeps thousands (family members, rejected keys)
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
    tau: float = 0.0  # the threshold the key was accepted at (its score's scale)

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


def _chance_same(pairs: list[int], langs: list[str | None]) -> float:
    """How many of a key's pairs would join two pages of one language if its two sides' pages
    were matched at random, plus two standard deviations.  A language key on a site with
    untranslated pages (French text under /en/) pairs some pages of one language, but no more
    than chance; a key that pairs copies of pages (htm:html, print:(null)) pairs far more."""
    side_a: Counter[str] = Counter()
    side_b: Counter[str] = Counter()
    for ab in pairs:
        la, lb = langs[ab >> _PAIR_BITS], langs[ab & _LOW]
        if la is not None:
            side_a[la] += 1
        if lb is not None:
            side_b[lb] += 1
    na, nb = sum(side_a.values()), sum(side_b.values())
    if not na or not nb:
        return 0.0
    p = sum(c * side_b[lang] for lang, c in side_a.items()) / (na * nb)
    n = len(pairs)
    return n * p + 2 * (n * p * (1 - p)) ** 0.5


class _Unit(NamedTuple):
    """One plain key inside an accepted key, as it enters the competition."""

    rank: tuple[int, int, str, int, KeyId]  # processing order
    kid: KeyId
    side_a: str  # label of side a when the URL has no language (the pattern side for affix keys)
    side_b: str
    accepted: UrlKey | None  # the accepted key the pairs are reported under; None: a shadow key


def _order(unit: _Unit) -> tuple[bool, tuple[int, int, str, int, KeyId]]:
    return unit.kid[0] == _MULTI, unit.rank


class UrlKeyIndex:
    """Incremental URL-key matcher for one site.  `add` URLs as they are crawled, `recompute()` now
    and then; `keys()`, `pairs()`, `key_score()` and `rows()` read the last recompute."""

    def __init__(self, min_power_share: float = 0.1, min_power: int = 2, max_span: int = 2,
                 max_group: int = 64, max_reject_share: float = 0.5, host_keys: bool = False,
                 generalize: bool = True, families: bool = True, min_side_share: float = 0.3,
                 min_side_power: int = 3, markers: bool = True, marker_purity: float = 0.9,
                 marker_coverage: float = 0.25) -> None:
        if not 1 <= max_span <= MAX_SPAN:
            raise ValueError(f"max_span must be in 1..{MAX_SPAN}")
        self.min_power_share = min_power_share
        self.min_power = min_power
        self.max_span = max_span
        self.max_group = max_group
        self.max_reject_share = max_reject_share
        self.generalize = generalize
        self.families = families
        self.min_side_share = min_side_share
        self.min_side_power = min_side_power
        self.markers = markers
        self.marker_purity = marker_purity
        self.marker_coverage = marker_coverage
        self._key_fields = (0, 1, 2, 3) if host_keys else (1, 2, 3)
        self._table = UrlTable(self._key_fields, max_span)
        self._urls = self._table.urls  # page id -> its first URL
        self._ids: dict[str, int] = {}  # every URL added, aliases included -> page id
        self._df: list[dict[str, int]] = [defaultdict(int) for _ in FIELDS]  # URLs per field token
        self._langs: list[str | None] = []
        self._alone = StandaloneMasks()
        self._clear_results()

    def _clear_results(self) -> None:
        self._tau = float(self.min_power)
        self._power = CountedKeys()  # every plain key counted
        self._side_n: dict[tuple[int, Side], int] = {}  # URLs carrying a marker side
        self._markers: dict[str, str] = {}  # marker token -> the language it marks
        self._keys: list[UrlKey] = []  # accepted keys by index, in first-accepted order
        self._accepted: list[UrlKey] = []  # the same, strongest first
        self._rejected = CountedKeys()  # extra: rejected pairs << 1 | 1 for a "conflict"
        self._pairs: list[int] = []  # packed pairs of the union, in acceptance order
        self._pair_key: dict[int, int] = {}  # packed pair, smaller id first -> index in _keys

    def __len__(self) -> int:
        return len(self._urls)

    # -- building -------------------------------------------------------------------------------

    def add(self, url: str, lang: str | None = None) -> None:
        """Register a URL (and its language if known).  URLs with the same canonical form
        (matchers.site.url_canonical) are one page, reported under the first URL added; a
        language given later fills in a missing one."""
        uid = self._ids.get(url)
        if uid is None:
            canon = canonical_url(url)
            uid = self._table.page(canon)
            if uid is not None:
                self._ids[url] = uid
        if uid is not None:
            if self._langs[uid] is None:
                self._langs[uid] = lang
            return
        uid = len(self._urls)
        self._ids[url] = uid
        self._langs.append(lang)
        fields = self._table.add(uid, url, canon, map(_TOKEN.findall, _field_texts(canon)))
        for fid in self._key_fields:
            df = self._df[fid]
            for t in set(fields[fid]):
                df[t] += 1

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

    # -- acceptance -----------------------------------------------------------------------------

    def _plain(self, kid: KeyId, power: int, tau: float = 0.0) -> UrlKey:
        return UrlKey(_side_text(kid[1]), _side_text(kid[2]), power, field=FIELDS[kid[0]], tau=tau)

    def _side_size(self, fid: int, side: Side) -> float:
        """URLs that carry a key side; a multi-token side counts as its rarest token."""
        if fid == _MULTI:
            return self._side_n.get(side, 0)
        if not side:
            return float("inf")
        df = self._df[fid]
        return min(df.get(t, 0) for t in side)

    def _key_tau(self, kid: KeyId, tau: float) -> float:
        """The threshold a plain key must reach: the paper's share of the whole site, or a share
        of the URLs of its smaller side, whichever is lower.  A key can never link more pages
        than its smaller side has, so on a site with 3,000 French and 240 English pages the true
        key is out of reach of 1/10 of the site but not of a share of the 240."""
        fid, a, b = kid
        smaller = min(self._side_size(fid, a), self._side_size(fid, b))
        return min(tau, max(float(self.min_side_power), self.min_side_share * smaller))

    def _marks_languages(self, kid: KeyId) -> bool:
        """A marker key whose sides are one marker each, of two different languages: the markers'
        purity over the whole site is its evidence, not its number of pairs (url_markers)."""
        if kid[0] != _MULTI or len(kid[1]) != 1 or len(kid[2]) != 1:
            return False
        la, lb = self._markers.get(kid[1][0]), self._markers.get(kid[2][0])
        return la is not None and lb is not None and la != lb

    def _units(self, power: dict[KeyId, int], tau: float) -> list[_Unit]:
        """Accepted keys (module docstring (a)-(c)) unrolled into their plain keys, plus the
        shadow keys that come before the last of them, in the order they compete."""
        # A key seen fewer than min_power times is not a pattern at all: this also keeps id
        # differences (3fa:3fb in a hex-id slot) out of the affix generalization.
        counted = power
        power = {kid: p for kid, p in power.items() if p >= self.min_power or self._marks_languages(kid)}
        units: list[_Unit] = []
        absorbed: set[KeyId] = set()
        if self.generalize:
            patterns: dict[tuple[int, str, str], list[tuple[KeyId, bool]]] = defaultdict(list)
            for kid in power:
                fid, a, b = kid
                if fid == _MULTI or len(a) > 1 or len(b) > 1:
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
                             FIELDS[fid], "affix", tau)
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
            # A key seen once whose two sides both belong to one family is a pair in that
            # family's slot (gl:ja on a 19-language site where one article has both): the
            # family, not the single pair, is the pattern.
            weak: dict[int, list[KeyId]] = defaultdict(list)
            for kid, p in counted.items():
                if p < self.min_power and kid[1] and kid[2]:
                    x, y = node_ids.get((kid[0], kid[1])), node_ids.get((kid[0], kid[2]))
                    if x is not None and y is not None and find(x) == find(y):
                        weak[find(x)].append(kid)
            for root, mem in fams.items():
                if len(mem) < 2:
                    continue
                total = sum(power[kid] for kid in mem)
                if total < tau:
                    continue
                for kid in weak.get(root, ()):
                    power[kid] = counted[kid]
                    mem.append(kid)
                mem.sort(key=lambda k: (-power[k], k))
                text = "|".join(sorted({_side_text(s) for kid in mem for s in kid[1:]}))
                key = UrlKey(text, text, total, True, tuple(self._plain(k, power[k]) for k in mem),
                             FIELDS[mem[0][0]], "family", tau)
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
            key_tau = 1.0 if self._marks_languages(kid) else self._key_tau(kid, tau)
            if power[kid] >= key_tau:
                key = self._plain(kid, power[kid], key_tau)
                units.append(_Unit((-power[kid], kid[0], "", 0, kid), kid, key.t1, key.t2, key))
            else:
                shadows.append(kid)
        if not units:
            return []
        # Below the threshold a key is a shadow: it still labels and claims its URLs, so a weaker
        # accepted key cannot take them, but none of its pairs is output.  Shadows ranked after
        # the last accepted key can no longer change anything and are left out.
        # Marker keys compete after every single-field key: they take the pairs those leave
        # (a home page /en : /fr, keys in two fields at once), so a site whose codes sit in one
        # field keeps the paper's keys.
        last = max(_order(u) for u in units)
        for kid in shadows:
            rank = (-power[kid], kid[0], "", 0, kid)
            if (kid[0] == _MULTI, rank) < last:
                units.append(_Unit(rank, kid, _side_text(kid[1]), _side_text(kid[2]), None))
        units.sort(key=_order)
        return units

    # -- competition ----------------------------------------------------------------------------

    def recompute(self) -> None:
        """Recount keys over all URLs added so far and rebuild the competitive union."""
        self._clear_results()
        tau = self._tau = self.threshold()
        key_pairs = self._table.count(self.max_group)
        if self.markers:
            self._alone.update(self._urls, self._table.rows(len(self._alone)), self._key_fields)
            markers = self._markers = find_markers(self._table.rows(), self._langs, self._key_fields, self.marker_purity,
                                                   self.marker_coverage, self.min_side_power, self._alone)
            multi, side_n = marker_pairs(self._table.rows(), self._langs, self._key_fields, markers,
                                         self.max_group, _MULTI, _PAIR_BITS)
            key_pairs.update(multi)
            self._side_n = dict(side_n)
        urls = self._urls
        langs = self._langs
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
        power = {kid: len(v) for kid, v in key_pairs.items()}
        pair_key = self._pair_key
        dropped: list[tuple[KeyId, int]] = []
        why: list[int] = []
        for unit in self._units(power, tau):
            pairs = sorted(key_pairs[unit.kid], key=lambda ab: rank[ab >> _PAIR_BITS] * n + rank[ab & _LOW])
            side_a = label_ids.setdefault(("key", unit.side_a), len(label_ids))
            side_b = label_ids.setdefault(("key", unit.side_b), len(label_ids))
            new_labels: dict[int, int] = {}
            new_slots: set[int] = set()
            kept: list[int] = []
            same = conflict = taken = 0
            for ab in pairs:
                a, b = ab >> _PAIR_BITS, ab & _LOW
                if (ab if a < b else b << _PAIR_BITS | a) in pair_key:  # a stronger key linked them
                    taken += 1
                    continue
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
            reason = ""
            if same > self.max_reject_share * len(pairs) and (same == len(pairs) or same > _chance_same(pairs, langs)):
                reason = "same-language"
            elif conflict > self.max_reject_share * (len(pairs) - same - taken) and conflict >= self.min_side_power:
                # Two conflicts out of three say nothing (an untranslated copy under the code of
                # a language the document lacks makes them); a false key has many.
                reason = "conflict"
            if reason:
                if unit.accepted is not None:
                    dropped.append((unit.kid, len(pairs)))
                    why.append(rejected << 1 | (reason == "conflict"))
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
                pair_key[unordered_pair(ab)] = ki
        self._power = CountedKeys(power.items())
        self._rejected = CountedKeys(dropped, why)
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
        return [RejectedKey(self._plain(kid, n), ("same-language", "conflict")[w & 1], (w >> 1) / n)
                for (kid, n), w in zip(self._rejected.items(), self._rejected.extra, strict=True)]

    def pairs(self) -> list[tuple[str, str, UrlKey]]:
        """The competitive union: (URL with side t1, URL with side t2, accepted key), in the order
        the pairs were accepted (strongest key first).  For a family key the sides are those of
        the member key that linked the pair."""
        urls = self._urls
        return [(urls[ab >> _PAIR_BITS], urls[ab & _LOW], self._keys[self._pair_key[unordered_pair(ab)]])
                for ab in self._pairs]

    def key_score(self, url_a: str, url_b: str) -> float:
        """power / (power + tau) of the accepted key that paired the two URLs, else 0."""
        a, b = self._ids.get(url_a), self._ids.get(url_b)
        if a is None or b is None:
            return 0.0
        ki = self._pair_key.get(unordered_pair(a << _PAIR_BITS | b))
        if ki is None:
            return 0.0
        key = self._keys[ki]
        return key.power / (key.power + (key.tau or self._tau))

    def rows(self) -> list[KeyRow]:
        """One export row per accepted key: text, power, generalized, an example pair, field."""
        urls = self._urls
        first: dict[int, tuple[str, str]] = {}
        for ab in self._pairs:
            first.setdefault(self._pair_key[unordered_pair(ab)], (urls[ab >> _PAIR_BITS], urls[ab & _LOW]))
        index = {key: ki for ki, key in enumerate(self._keys)}
        return [KeyRow(k.text, k.power, k.generalized, first[index[k]], k.field) for k in self._accepted]
