"""Size filter stage: register the page in its site's index and keep the earlier pages of other
languages whose file size, tag count and paragraph count are close (matchers.structure.size_ratio).

An exact copy of an earlier page of the same language (same tag sequence) is stored but not
registered, so it cannot take its original's translation.
"""

from __future__ import annotations

from typing import Any

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from matchers.site.page_index import CandidateSet, PageFeatures, SiteIndex
from matchers.structure.size_ratio import size_passing
from pipelines.base import MatchingStage, pages_only


def size_filter(index: SiteIndex, page: PageFeatures, config: BitextConfig) -> tuple[list[CandidateSet], int]:
    """Admit ``page`` to the index (SiteIndex.admit) and return its size-passing candidates, and
    how many were compared (none for a copy of an earlier page)."""
    _original, candidates = index.admit(page)
    return size_candidates(index, page, candidates, config)


def size_candidates(
    index: SiteIndex, page: PageFeatures, candidates: list[CandidateSet], config: BitextConfig
) -> tuple[list[CandidateSet], int]:
    """The size-passing ``candidates`` of a just registered ``page``, and how many were compared."""
    compared = 0
    own = (page.size_bytes, page.size_chars, page.n_tags, page.n_paragraphs)
    for cand in candidates:
        compared += len(cand)
        keep, rows, scores = size_passing(
            own, index.index(cand.lang).size_columns(), cand.rows,
            config.size_file_tolerance, config.size_tags_tolerance, config.size_paragraphs_tolerance,
        )
        cand.take(keep, rows)
        cand.add_scores(**scores)
    return [c for c in candidates if len(c)], compared


class SizeFilterPipeline(MatchingStage):

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.eligible or item.features is None or item.lang is None:
            return item
        site = self.runtime.site(item.site)
        f = item.features
        page = PageFeatures(
            item.url, item.lang, len(item.body), item.size_chars, f.n_tags, f.n_paragraphs, f.tokens, item.content,
            item.published, item.canonical,
        )
        spilled = site.index.content_spilled
        original, candidates = site.index.admit(page)
        self.stats.inc_value("bitext/content/spilled", site.index.content_spilled - spilled)
        if original is not None:
            item.eligible = False
            item.note = f"duplicate of {original}"
            self.stats.inc_value("bitext/pages/duplicates")
            return item
        item.visible = {lang: len(rows) for lang, rows in site.index.languages.items()}
        item.candidates, compared = size_candidates(site.index, page, candidates, self.config)
        passed = sum(len(c) for c in item.candidates)
        self.stats.inc_value("bitext/candidates/compared", compared)
        self.stats.inc_value("bitext/candidates/size", passed)
        return item
