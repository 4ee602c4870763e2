"""Language markers: multi-field URL pairing keys learned from the site's page languages.

Kit & Ng (URL pairing patterns, section 2) allow no cross-field linkage, so a site whose
translations differ in two fields at once (``/german/guide_de.html`` : ``/french/guide_fr.html``,
a path segment and a file suffix) has no key at all.  Their section 5 proposes generalizing keys;
this module does it from the languages the crawl has identified: a URL token is a *marker* of a
language when nearly all the URLs that carry it are in that language (`purity`) and it occurs in
a fair share of that language's URLs (`coverage`: a slug of one English-only article is pure but
marks nothing).  Deleting every marker from a URL leaves the part that names the document; URLs
left equal, in different languages, are paired, and the key of a pair is the two URLs' deleted
markers, as "german-de:french-fr".  These keys compete under the same rules as the single-field
keys (matchers.site.url_keys), after all of them: they take the pairs the single-field keys
leave (two fields at once, a home page /en : /fr whose code is in the file field).  A key whose
two sides are each one marker, of two different languages (/en/a11y/ : /fr/a11y/ on a site
whose every other page has a translated slug), stands on the markers' evidence, established over
the whole site, and needs no second pair.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from urllib.parse import unquote

from matchers.page.lang_codes import base_language

Fields = tuple[tuple[str, ...], ...]


_ELEMENT = re.compile(r"[^/._?&=#;,+]+")
_TOKEN = re.compile(r"[^\W_]+")


def standalone_tokens(url: str) -> frozenset[str]:
    """The tokens of ``url`` that stand alone: an element between ``/ . _ ? & =`` and the like, or
    a part of an element of at most two hyphen-joined parts (``pt-br``, ``zh-hans``), but not a
    word of a longer hyphenated slug.  A language code sits alone (/fr/, x.fr.html, ?lang=fr); the
    French word *en* in /fr/en-pleine-croissance/ is no code, and counting it would make /en/ look
    impure on a French site with translated slugs."""
    out: set[str] = set()
    for element in _ELEMENT.findall(unquote(url.partition("://")[2])):
        parts = element.split("-")
        if len(parts) <= 2:
            out.update(t for part in parts for t in _TOKEN.findall(part))
    return frozenset(out)


def _candidates(f: Fields, key_fields: Iterable[int]) -> Iterable[str]:
    """The distinct tokens of a URL's key fields, in a fixed order (bit i of its mask is the i-th)."""
    return dict.fromkeys(t for fid in key_fields for t in f[fid])


class StandaloneMasks:
    """Per URL, which of its key-field tokens stand alone in it (:func:`standalone_tokens`), as a
    bit mask over :func:`_candidates`.  A URL's mask never changes, so it is computed once, at the
    first recompute that sees the URL, and kept in 8 bytes where a set of the tokens takes ~900."""

    def __init__(self) -> None:
        self._masks = array("Q")
        self._wide: dict[int, int] = {}  # the masks that need more than 64 bits

    def __len__(self) -> int:
        return len(self._masks)

    def __getitem__(self, uid: int) -> int:
        return self._wide[uid] if uid in self._wide else self._masks[uid]

    def update(self, urls: Sequence[str], rows: Iterable[Fields], key_fields: Sequence[int]) -> None:
        """Compute the masks of ``urls[len(self):]``, the URLs added since the last update, whose
        fields ``rows`` gives."""
        for url, f in zip(urls[len(self._masks):], rows, strict=True):
            alone = standalone_tokens(url)
            mask = 0
            for i, t in enumerate(_candidates(f, key_fields)):
                if t in alone:
                    mask |= 1 << i
            if mask >> 64:
                self._wide[len(self._masks)] = mask
                mask = 0
            self._masks.append(mask)


def find_markers(fields: Iterable[Fields], langs: Sequence[str | None], key_fields: Sequence[int],
                 purity: float, coverage: float, min_count: int,
                 alone: StandaloneMasks | None = None) -> dict[str, str]:
    """The tokens that mark a language, each with the (base) language it marks.  Fields are not
    told apart: the home page /en has its code in the file field where every other page has it in
    the path (/en/about).  With ``alone`` (updated to all of ``fields``), a token counts where it
    stands alone in its URL (:func:`standalone_tokens`)."""
    per_lang: Counter[str] = Counter()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for i, (f, code) in enumerate(zip(fields, langs, strict=True)):
        if code is None:
            continue
        mask = alone[i] if alone is not None else -1  # -1: every bit set
        # pt and pt-br share "pt" (/pt/, /pt-br/), zh-cn and zh-tw share "zh": purity is judged
        # by base language, or the shared token would stay in the URL and block the pair.
        lang = base_language(code)
        per_lang[lang] += 1
        for j, t in enumerate(_candidates(f, key_fields)):
            if mask >> j & 1:
                counts[t][lang] += 1
    markers = {}
    for ft, by_lang in counts.items():
        total = sum(by_lang.values())
        if total < min_count:
            continue
        lang, n = by_lang.most_common(1)[0]
        if n >= purity * total and n >= coverage * per_lang[lang]:
            markers[ft] = lang
    return markers


def marker_pairs(fields: Iterable[Fields], langs: Sequence[str | None], key_fields: Sequence[int],
                 markers: dict[str, str], max_group: int, multi: int,
                 pair_bits: int) -> tuple[dict[tuple[int, tuple[str, ...], tuple[str, ...]], array],
                                          Counter[tuple[str, ...]]]:
    """Pairs of every multi-field key (packed as url_keys packs them) and the number of URLs
    carrying each side."""
    if not markers:
        return {}, Counter()
    groups: dict[int, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
    side_n: Counter[tuple[str, ...]] = Counter()
    for uid, (f, lang) in enumerate(zip(fields, langs, strict=True)):
        if lang is None:
            continue
        removed: list[str] = []
        rest = list(f)
        for fid in key_fields:
            rest[fid] = tuple(t for t in f[fid] if t not in markers)
            removed += [t for t in f[fid] if t in markers]
        side = tuple(removed)
        side_n[side] += 1
        groups[hash(tuple(rest))].append((uid, side))
    # Packed pairs as machine ints, as url_key_counting.count_key_pairs returns them.
    out: dict[tuple[int, tuple[str, ...], tuple[str, ...]], array] = defaultdict(lambda: array("q"))
    for members in groups.values():
        if not 2 <= len(members) <= max_group:
            continue
        for i, (ua, sa) in enumerate(members):
            for ub, sb in members[i + 1:]:
                if sa == sb or langs[ua] == langs[ub]:
                    continue
                if sa < sb:
                    out[(multi, sa, sb)].append(ua << pair_bits | ub)
                else:
                    out[(multi, sb, sa)].append(ub << pair_bits | ua)
    return dict(out), side_n
