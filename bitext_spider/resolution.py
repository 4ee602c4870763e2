"""The close-time work of a crawl, in one explicit order: from stored candidates to final pairs.

Both the crawl (when the spider goes idle, or at close if pages came after that) and
``bitext resolve`` (from the database alone, e.g. after a crawl was killed) run
:meth:`Resolver.run`, so the two give the same pairs on the same candidates.  For each site:

1. **content** (the content filter is on): candidates a young translation model let through are
   judged again with the final model, then pages left without a candidate in a language get a
   content-only search with it (the close sweep; bitext_spider/site_steps/content.py);
2. **dictionary** (``BITEXT_DICTIONARY``): the candidates found at close are judged, and pages with
   more than one accepted counterpart are dropped (PCB; bitext_spider/site_steps/dictionary.py);
3. **decision** (the content filter or the site evidence is on, ``decision_enabled``): URL keys
   and links propose more pairs, every candidate gets all evidence and one decision
   (bitext_spider/site_steps/decision.py);
4. **one-to-one**: the accepted candidates are resolved best score first into the site's final
   pairs, replacing the previous ones (``Store.resolve_site``, matchers/site/one_to_one.py);
5. **sentences** (content filter on): the final pairs are aligned with the final models and their
   sentence pairs stored.

Then every site's model training is saved and, with ``BITEXT_CONTENT_MODEL_FOLD``, folded into the
stored models.  A step that fails is logged and counted (``bitext/errors/close_step``); the steps
after it still run, so the pairs already found are not lost.

Steps 1 and 2 run when the crawl has their page-by-page stage (the stage turns its step on when it
is built; ``bitext resolve`` turns on the steps whose stages the settings' ``ITEM_PIPELINES`` and
``BITEXT_*`` values would build, :meth:`Resolver.configure`); step 3 runs whenever the settings
give the decision evidence to weigh.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from scrapy.utils.conf import build_component_list

from bitext_spider.items import PairItem
from bitext_spider.site_steps.content import ContentFilter
from bitext_spider.site_steps.decision import SiteDecision, decision_enabled
from bitext_spider.site_steps.dictionary import DictionaryFilter, close_site, load_filter

if TYPE_CHECKING:
    from bitext_spider.runtime import BitextRuntime, SiteState

logger = logging.getLogger(__name__)

# The stages whose presence in ITEM_PIPELINES turns a close-time step on (bitext resolve): the
# content filter's and the dictionary's steps go with their page-by-page stages.
_CONTENT_STAGE = "pipelines.content_filter.ContentFilterPipeline"
_DICTIONARY_STAGE = "pipelines.dictionary_filter.DictionaryFilterPipeline"

# Stats a run sets from scratch: a crawl may resolve again at close when pages came after the
# resolution at idle, and these count the last run, not the sum of both.
_PER_RUN = ("bitext/decision/accepted", "bitext/decision/rejected", "bitext/decision/proposed",
            "bitext/decision/proposed_accepted")


class Resolver:
    """Runs the close-time sequence on a runtime's sites; see the module docstring."""

    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.content: ContentFilter | None = None
        self.dictionary: DictionaryFilter | None = None
        # The decision has no page-by-page stage: the settings alone say whether it runs.
        self.decision: SiteDecision | None = SiteDecision(runtime) if decision_enabled(runtime.config) else None
        self.runs = 0

    def configure(self, settings: Any) -> None:
        """Turn on the steps whose stages a crawl with ``settings`` would build (for
        ``bitext resolve``, which has no item pipelines).  May raise DictionaryConfigError."""
        cfg = self.runtime.config
        stages = _pipeline_paths(settings)

        def has(stage: str) -> bool:
            return cfg.enabled and stage in stages

        if has(_CONTENT_STAGE) and cfg.content_enabled:
            self.content = ContentFilter(self.runtime)
        if has(_DICTIONARY_STAGE) and cfg.dictionary:
            self.dictionary = load_filter(cfg)


    def steps(self) -> list[str]:
        """The steps that run, in order (for logs and tests)."""
        names = []
        if self.content is not None:
            names.append("content")
        if self.dictionary is not None:
            names.append("dictionary")
        if self.decision is not None:
            names.append("decision")
        names.append("one-to-one")
        if self.content is not None:
            names.append("sentences")
        return names

    # -- the sequence ---------------------------------------------------------------------------
    def run(self, sites: Iterable[SiteState]) -> Counter[str]:
        """Resolve every site in ``sites``; returns the final pairs by language pair."""
        stats = self.runtime.stats
        store = self.runtime.store
        for key in _PER_RUN:
            if stats.get_value(key) is not None:
                stats.set_value(key, 0)
        total: Counter[str] = Counter()
        sentences = 0
        for state in sites:
            content, dictionary, decision = self.content, self.dictionary, self.decision
            if content is not None:
                self._step(state, "content", lambda s, f=content: f.sweep_site(
                    s, f.rejudge_site(s, store.site_candidates(s.site_id))))
            if dictionary is not None:
                self._step(state, "dictionary", lambda s, f=dictionary: close_site(f, self.runtime, s))
            if decision is not None:
                self._step(state, "decision", decision.decide_site)
            by_langs = store.resolve_site(state.site_id)
            total.update(by_langs)
            logger.info("site %s: %d pairs", state.key, sum(by_langs.values()))
            if content is not None:
                sentences += self._step(state, "sentences", content.store_sentences) or 0
        if self.content is not None:
            for key, n in self.content.counts.items():
                stats.set_value(f"bitext/content/{key}", n)
            stats.set_value("bitext/sentences", sentences)
        self.runtime.save_models()
        stats.set_value("bitext/pairs", sum(total.values()))
        for langs, n in sorted(total.items()):
            stats.set_value(f"bitext/pairs/{langs}", n)
        self.runs += 1
        return total

    def _step(self, state: SiteState, name: str, step: Callable[[SiteState], Any]) -> Any:
        try:
            return step(state)
        except Exception:
            # A failing step must not cost the pairs already found: resolution still runs.
            logger.exception("site %s: close step %s failed", state.key, name)
            self.runtime.stats.inc_value("bitext/errors/close_step")
            return None

    def final_pairs(self, site_ids: Iterable[int]) -> list[PairItem]:
        """The stored final pairs of ``site_ids`` as items, in ``bitext export pairs`` order."""
        return [
            PairItem(r.lang1, r.url1, r.lang2, r.url2, round(r.score, 6), "final")
            for r in self.runtime.store.pairs(site_ids=list(site_ids))
        ]


def _pipeline_paths(settings: Any) -> set[str]:
    """The import paths of the item pipelines ``settings`` enable (the stages that turn steps on
    are named by path, so this module imports no pipeline)."""
    out = set()
    for entry in build_component_list(settings.get_component_priority_dict_with_base("ITEM_PIPELINES")):
        out.add(entry if isinstance(entry, str) else f"{entry.__module__}.{entry.__qualname__}")
    return out
