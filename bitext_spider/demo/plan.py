"""The demo site's plan: which documents exist in which languages, the hard negatives (same
structure, other words), and each page's path."""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bitext_spider.demo.composer import _choice, _Composer, _derive
from bitext_spider.demo.lexicon import _SPACED_LANGS, Lexicon
from bitext_spider.demo.render import _render_blocks, _Renderer

# --------------------------------------------------------------------------------------------------
# Site plan


@dataclass(frozen=True)
class SiteInfo:
    """What :func:`generate_site` wrote, with the gold standard and the special pages."""

    root: Path
    www: Path
    base_url: str
    langs: tuple[str, ...]
    hosts_path: Path
    seeds_path: Path
    pages_path: Path
    gold_path: Path
    content_types_path: Path
    pages: tuple[tuple[str, str], ...]  # (url, lang) of every content page, sorted by URL
    gold: tuple[tuple[str, str, str, str], ...]  # (lang1, url1, lang2, url2), lang1 < lang2
    sitemap_only: tuple[str, ...] = ()  # pages linked only from sitemap.xml
    feed_only: tuple[str, ...] = ()  # pages linked only from feed.xml
    private: tuple[str, ...] = ()  # pages under a robots.txt Disallow
    hard_negatives: tuple[str, ...] = ()  # single-language look-alikes of other documents
    home_pages: Mapping[str, str] = field(default_factory=dict)  # lang -> URL of its home page
    assets: tuple[str, ...] = ()  # binary files (PDF, PNG)
    charsets: Mapping[str, str] = field(default_factory=dict)  # lang -> encoding of its pages
    retemplated: tuple[str, ...] = ()  # pages written with the other template (_legacy_page)

    @property
    def page_count(self) -> int:
        """Number of content pages (the lines of pages.tsv)."""
        return len(self.pages)


@dataclass
class _Doc:
    id: int
    role: str  # "regular", "orphan", "feed", "hard_negative"
    langs: tuple[str, ...]
    struct_seed: int
    lex_seed: int
    target: int | None = None  # the document a hard negative imitates
    titles: dict[str, str] = field(default_factory=dict)
    bodies: dict[str, str] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)


def _plan_docs(
    n_docs: int, langs: Sequence[str], seed: int, coverage: float, hard_negatives: int, extras: bool
) -> list[_Doc]:
    """Decide which documents exist, in which languages, and their roles."""
    rng = random.Random(_derive(seed, "plan"))
    n_special = 0
    if extras and n_docs >= 4:
        n_special = 1 + max(1, n_docs // 20)  # one feed-only document plus the sitemap orphans
    special = set(rng.sample(range(n_docs), n_special))
    special_order = sorted(special)
    docs = []
    for i in range(n_docs):
        cov = random.Random(_derive(seed, "coverage", i))
        present = [langs[0]] + [lang for lang in langs[1:] if cov.random() < coverage]
        role = "regular"
        if i in special:
            role = "feed" if i == special_order[0] else "orphan"
            if len(present) < 2 and len(langs) > 1:
                present.append(langs[1 + cov.randrange(len(langs) - 1)])  # they must have gold pairs
        present.sort(key=langs.index)
        docs.append(_Doc(i, role, tuple(present), _derive(seed, "struct", i), _derive(seed, "lex", i)))
    docs.extend(_plan_hard_negatives(docs, langs, seed, hard_negatives, rng))
    return docs


def _plan_hard_negatives(
    docs: list[_Doc], langs: Sequence[str], seed: int, count: int, rng: random.Random
) -> list[_Doc]:
    """Look-alikes of regular documents, preferably in a language the original lacks."""
    if count <= 0 or len(langs) < 2:
        return []
    regular = [d for d in docs if d.role == "regular"]
    if not regular:
        return []
    gaps = [(d, lang) for d in regular for lang in langs[1:] if lang not in d.langs]
    rng.shuffle(gaps)
    out = []
    for k in range(count):
        if k < len(gaps):
            target, lang = gaps[k]
        else:
            target, lang = _choice(rng, regular), _choice(rng, langs[1:])
        hid = len(docs) + k
        out.append(
            _Doc(
                hid, "hard_negative", (lang,), target.struct_seed, _derive(seed, "lex", hid), target=target.id
            )
        )
    return out


def _slugify(title: str, lang: str) -> str:
    if lang in _SPACED_LANGS:
        folded = title.lower().replace("ß", "ss").replace("œ", "oe").replace("æ", "ae").replace("ł", "l")
        folded = unicodedata.normalize("NFKD", folded).encode("ascii", "ignore").decode()
        slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
        if len(slug) > 60:
            slug = slug[:60].rsplit("-", 1)[0]
        return slug
    return re.sub(r"[\W_]+", "-", title).strip("-")[:30].strip("-")


def _compose_doc(doc: _Doc, lex: Lexicon, renderers: Mapping[str, _Renderer], seed: int) -> None:
    blocks = _Composer(lex, random.Random(doc.struct_seed), random.Random(doc.lex_seed)).document()
    for lang in doc.langs:
        r = renderers[lang]
        r.start_page(_derive(seed, "render", doc.id, lang))
        doc.titles[lang], doc.bodies[lang] = _render_blocks(blocks, r, markup_key=doc.struct_seed)


def _assign_paths(docs: Sequence[_Doc]) -> None:
    """URL paths from the titles, made unique per language; ``index*`` is kept for listings."""
    used: set[str] = set()
    for doc in docs:
        for lang in doc.langs:
            slug = _slugify(doc.titles[lang], lang) or f"page-{doc.id}"
            candidate, n = slug, 1
            while f"/{lang}/{candidate}.html" in used or re.fullmatch(r"index(-\d+)?", candidate):
                n += 1
                candidate = f"{slug}-{n}"
            doc.paths[lang] = f"/{lang}/{candidate}.html"
            used.add(doc.paths[lang])
