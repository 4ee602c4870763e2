"""Site-wide evidence that only exists once many pages are known: URL pairing keys, image
frequencies, inlink counts, near-duplicates; and each page's links, images, depth and fingerprint.

Pages are added as they arrive (pipelines/url_keys.py, link_evidence.py, image_evidence.py,
fingerprint.py, near_duplicates.py) or from the database when a crawl is
resumed; the decision at close (matchers/site/site_decision.py) reads the settled site-wide figures.
Kit & Ng (URL keys), *ILSP-FC* 3.8 (near-duplicates) and 3.9 (images, depth, fingerprints).
"""

from __future__ import annotations

import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from matchers.page.lang_codes import primary_subtag
from matchers.page.outlinks import Outlink
from matchers.site.image_evidence import ImageFrequencies, depth
from matchers.site.link_evidence import PageLinks, same_language
from matchers.site.near_duplicates import NearDuplicateIndex, paragraph_hashes
from matchers.site.url_keys import UrlKeyIndex
from matchers.structure.fingerprint import fingerprint


@dataclass(slots=True)
class PageEvidence:
    url: str
    lang: str
    depth: int
    links: PageLinks
    images: frozenset[str]
    # Machine ints: a site keeps one per page, and a list would hold each length as an object.
    fingerprint: Sequence[int]


def _interned(value: object) -> object:
    return sys.intern(value) if isinstance(value, str) else value


class SiteEvidence:
    def __init__(self, url_key_share: float = 0.1) -> None:
        self.pages: dict[str, PageEvidence] = {}
        self.url_keys = UrlKeyIndex(min_power_share=url_key_share)
        self.images = ImageFrequencies()
        self._near: dict[str, NearDuplicateIndex] = {}
        # source lang -> target url -> pages: by language first, so no key tuple per target.
        self._inlinks: dict[str, Counter[str]] = {}
        self._canonical: dict[str, str] = {}  # page -> the other URL its rel=canonical names
        # Menus and templates repeat links and images on every page: one object for each distinct
        # link group and image set of the site, not one per page.
        self._link_pool: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}
        self._image_pool: dict[frozenset[str], frozenset[str]] = {}

    def _page(self, url: str, lang: str) -> PageEvidence:
        page = self.pages.get(url)
        if page is None:
            page = self.pages[url] = PageEvidence(url, lang, depth(url), PageLinks(url, lang, []), frozenset(), ())
        return page

    def add_url(self, url: str, lang: str) -> None:
        """URL pairing keys (Kit & Ng)."""
        self._page(url, lang)
        self.url_keys.add(url, lang)

    def add_links(self, url: str, lang: str, outlinks: Sequence[Outlink]) -> None:
        """Link evidence: the page's links, and inlink counts (menus link from every page)."""
        page = self._page(url, lang)
        if page.links.targets:
            return
        # Menus repeat the same targets and texts on every page: one string each for the site.
        page.links = PageLinks(url, lang, (tuple(_interned(v) for v in x) for x in outlinks),  # type: ignore[misc]
                               pool=self._link_pool)
        inlinks = self._inlinks.setdefault(lang, Counter())
        for target in {sys.intern(x[0]) for x in outlinks}:  # the string the page's links hold
            inlinks[target] += 1

    def add_images(self, url: str, lang: str, images: Sequence[str]) -> None:
        """ILSP-FC 3.9: the page's image file names and the site's image frequencies."""
        page = self._page(url, lang)
        if page.images:
            return
        names = frozenset(images)
        page.images = self._image_pool.setdefault(names, names)
        self.images.add(images, lang)

    def add_fingerprint(self, url: str, lang: str, paragraphs: Sequence[tuple[str, str, str]]) -> None:
        """ILSP-FC 3.9: the main content's type/length fingerprint."""
        self._page(url, lang).fingerprint = array("i", fingerprint(paragraphs))

    def add_paragraph_hashes(self, url: str, lang: str, paragraphs: Sequence[tuple[str, str, str]]) -> None:
        """ILSP-FC 3.8: near-duplicates by paragraph hashes, per language."""
        hashes = paragraph_hashes(paragraphs, lang)
        if hashes:
            self._near.setdefault(primary_subtag(lang), NearDuplicateIndex()).add(url, hashes)

    def add(
        self,
        url: str,
        lang: str,
        outlinks: Sequence[Outlink],
        images: Sequence[str],
        paragraphs: Sequence[tuple[str, str, str]],
        canonical: str | None = None,
    ) -> None:
        """Everything at once (a resumed crawl's stored pages)."""
        if url in self.pages:
            return
        self.add_url(url, lang)
        if canonical:
            self.add_canonical(url, canonical)
        self.add_links(url, lang, outlinks)
        self.add_images(url, lang, images)
        self.add_fingerprint(url, lang, paragraphs)
        self.add_paragraph_hashes(url, lang, paragraphs)

    def add_canonical(self, url: str, canonical: str) -> None:
        """The page names another URL as itself (rel=canonical): a print version, a copy."""
        self._canonical[url] = canonical

    def aliases(self) -> dict[str, str]:
        """Copy -> the page its rel=canonical names, when that page is stored in the copy's
        language.  A canonical naming a page of another language (a site that points every
        translation at its English page) says nothing about copies and is ignored."""
        out = {}
        for url, target in self._canonical.items():
            page, other = self.pages.get(url), self.pages.get(target)
            if page is not None and other is not None and primary_subtag(page.lang) == primary_subtag(other.lang):
                out[url] = target
        return out

    def inlink_count(self, url: str, lang: str) -> int:
        counts = self._inlinks.get(lang)
        return counts.get(url, 0) if counts is not None else 0

    def near_duplicates(self) -> dict[str, str]:
        """Dropped page -> the page kept in its place, all languages.  A copy and the page its
        rel=canonical names are not near-duplicates of each other: the copy is an alias (never
        paired), and the page itself keeps its place."""
        out: dict[str, str] = {}
        for index in self._near.values():
            out.update(index.duplicates())
        if self._canonical:
            aliases = self.aliases()
            out = {d: k for d, k in out.items() if aliases.get(k) != d and aliases.get(d) != k}
        return out

    def critical_images(self, url: str) -> frozenset[str]:
        page = self.pages.get(url)
        if page is None:
            return frozenset()
        return frozenset(n for n in page.images if not self.images.is_common(n))

    def linked_pairs(self) -> set[tuple[str, str]]:
        """Page pairs that a link joins across languages (hreflang or any link): the candidates
        link evidence can bring in besides the earlier filters'."""
        out: set[tuple[str, str]] = set()
        for page in self.pages.values():
            for target in page.links.targets:
                other = self.pages.get(target)
                if other is not None and other.url != page.url and not same_language(page.lang, other.lang):
                    out.add((min(page.url, other.url), max(page.url, other.url)))
        return out
