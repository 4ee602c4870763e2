"""An example of a user's own evidence (docs/custom_filter.md): the numbers two pages share.

Translations keep their numbers (dates, prices, versions, counts), and unrelated pages of one
template rarely share many.  The stage scores every candidate the earlier filters left with the
Jaccard similarity of the two pages' numbers, as ``x_numbers``; the decision at close adds every
``x_*`` score to its sum (matchers/site/decision.py), so a pair sharing all its numbers gains up to
0.2 and one sharing none loses 0.1.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from bitext_spider.items import PageItem
from pipelines.base import MatchingStage, pages_only

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


def numbers(text: str) -> frozenset[str]:
    return frozenset(_NUMBER.findall(text))


class SharedNumbersPipeline(MatchingStage):
    """Add to ITEM_PIPELINES between the content filter (500) and the decision (800), e.g. 700."""

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.content is None:
            return item
        mine = numbers(" ".join(item.content.sentences))
        index = self.runtime.site(item.site).index
        for cand in item.candidates:
            contents = index.index(cand.lang).content
            values = np.full(len(cand), np.nan)
            for k, row in enumerate(cand.rows.tolist()):
                other = contents[row]
                if other is None:
                    continue
                theirs = numbers(" ".join(other.sentences))
                if mine or theirs:
                    jaccard = len(mine & theirs) / len(mine | theirs)
                    values[k] = 0.3 * jaccard - 0.1  # in [-0.1, +0.2]: the term the decision adds
            cand.add_scores(x_numbers=values)
        return item
