"""Main-content stage: the page's content paragraphs (boilerplate out, types kept, language per
paragraph), split into sentences and word tokens for the content filters (matchers.page.main_content,
matchers.page.page_content).  A resumed crawl rebuilds a stored page's content with the same
``page_content`` (bitext_spider.runtime).

Papavassiliou et al., *ILSP-FC*, sections 3.3-3.4.  A paragraph of at least
``matchers.page.page_parse.MIN_PARAGRAPH_LID_WORDS`` words gets its own language; shorter ones are too
short to identify and take the page's.  The page's one parse (matchers.page.page_parse, in the
parse worker or in the crawl process, pipelines.page_parse) has already extracted, identified and
split the paragraphs; what needs the site's other pages, the repeated-boilerplate marking, is
done here in arrival order.
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from matchers.page.content_draft import Part, final_content
from matchers.page.lang_codes import same_language
from matchers.page.page_content import StoredParagraph, split_paragraph
from pipelines.base import MatchingStage, pages_only


class MainContentPipeline(MatchingStage):
    @classmethod
    def from_crawler(cls, crawler: Any) -> MainContentPipeline:
        # Every stage in the chain costs each item Scrapy's chaining, even one that passes it on.
        if not BitextConfig.from_crawler(crawler).parse_options().main_content:
            raise NotConfigured("neither the content filter nor a dictionary is on")
        return super().from_crawler(crawler)

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.eligible or item.html is None or item.lang is None:
            return item
        if not self.parse_options.main_content:
            return item
        site = self.runtime.site(item.site)
        parsed = self.parsed(item)
        if parsed.paragraphs is None:
            return item
        paragraphs, langs, draft = parsed.paragraphs, parsed.paragraph_langs, parsed.draft
        assert draft is not None  # the parse drafts the content of every page it extracts paragraphs of
        kept: list[StoredParagraph] = []
        parts: list[Part] = []  # what page_content splits of the kept paragraphs
        other_lang = 0
        marked = site.boilerplate.observe_and_mark(paragraphs, item.lang, keys=parsed.paragraph_keys or None)
        for i, p in enumerate(marked):
            lang = langs[i]
            # The parse gives every paragraph jusText keeps its language (None only for jusText's
            # boilerplate), and the site-level marking only adds boilerplate.
            if p.boilerplate or lang is None:
                continue
            if lang != item.lang and lang != "und":
                other_lang += 1
            kept.append((p.kind, lang, p.text))
            if lang != "und" and not same_language(lang, item.lang):
                continue  # in the record, not compared (page_content)
            # A title without the site's name is split again.
            same = draft.split[i] and p.text == paragraphs[i].text
            parts.append(i if same else split_paragraph(p.text, item.lang))
        item.paragraphs = kept
        item.content = final_content(draft, parts, item.lang)
        self.stats.inc_value("bitext/content/paragraphs", len(kept))
        self.stats.inc_value("bitext/content/boilerplate", len(paragraphs) - len(kept))
        if other_lang:
            self.stats.inc_value("bitext/content/paragraphs_other_lang", other_lang)
        self.stats.inc_value("bitext/content/sentences", len(item.content))
        return item
