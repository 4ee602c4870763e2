"""The close-time work of a crawl, in one explicit order: from stored candidates to final pairs.

Both the crawl (when the spider goes idle, or at close if pages came after that) and
``bitext resolve`` (from the database alone, e.g. after a crawl was killed) run
:meth:`Resolver.run`, so the two give the same pairs on the same candidates.  For each site:

1. **content** (``BITEXT_CONTENT_ENABLED``): candidates a young translation model let through take
   the verdict the crawl made once the model matured, or are judged again with the final model
   (matchers/content/young_judgments.py), then pages left without a candidate in a language get
   a content-only search with it (the close sweep; matchers/content/content_filter.py);
2. **dictionary** (``BITEXT_DICTIONARY``): the candidates found at close are judged, and pages with
   more than one accepted counterpart are dropped (PCB; matchers/content/dictionary_judge.py);
3. **decision** (the content filter or the site evidence is on, :func:`decision_enabled`): URL keys
   and links propose more pairs, every candidate gets all evidence and one decision
   (matchers/site/site_decision.py);
4. **one-to-one**: the accepted candidates are resolved best score first into the site's final
   pairs, replacing the previous ones (``Store.resolve_site``, matchers/site/one_to_one.py);
5. **sentences** (content filter on): the sentences stored as pages arrived (a trained model's
   alignment of each page with its best match) are kept for the final pairs and deleted for the
   others; the final pairs without stored sentences are aligned with the final models.

Every site's model training is saved and, with ``BITEXT_CONTENT_MODEL_FOLD``, folded into the
stored models beside the steps, on a thread of its own: no step trains the models, and most of
the save (compression, copies, the database write) does not hold the interpreter's lock.  A step
that fails is logged and counted (``bitext/errors/close_step``); the steps after it still run,
so the pairs already found are not lost.

The settings alone say which steps run (``BITEXT_ENABLED`` and the values above), so a crawl and
``bitext resolve`` with the same settings run the same steps.  The steps' computations are in
matchers/ and take plain data; this module reads what they need from the store and writes back
what they decide.  The resolver also owns the content and dictionary filters the crawl's
page-by-page stages use (pipelines/content_filter.py, pipelines/dictionary_filter.py), so the
close-time steps know the checks made as pages arrived.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from bitext_spider.config import BitextConfig
from bitext_spider.items import PairItem
from bitext_spider.store.records import SentenceRecord, SiteCandidate
from matchers.content.content_filter import ContentFilter
from matchers.content.dictionary_filter import DictionaryError, load_dictionary
from matchers.content.dictionary_judge import DictionaryFilter, close_judgments
from matchers.content.model_priming import dictionary_pairs
from matchers.site.site_decision import decide_site

if TYPE_CHECKING:
    from bitext_spider.runtime import BitextRuntime, SiteState

logger = logging.getLogger(__name__)

# Stats a run sets from scratch: a crawl may resolve again at close when pages came after the
# resolution at idle, and these count the last run, not the sum of both.
_PER_RUN = ("bitext/decision/accepted", "bitext/decision/rejected", "bitext/decision/proposed",
            "bitext/decision/proposed_accepted", "bitext/decision/pivot_proposed", "bitext/decision/pivot_accepted")


class DictionaryConfigError(RuntimeError):
    """The dictionary named by BITEXT_DICTIONARY cannot be used (the crawl does not start)."""


def content_enabled(config: BitextConfig) -> bool:
    """Whether the content filter runs (page by page, and steps 1 and 5 at close)."""
    return config.enabled and config.content_enabled


def dictionary_enabled(config: BitextConfig) -> bool:
    """Whether the dictionary filter runs (page by page, and step 2 at close)."""
    return config.enabled and bool(config.dictionary)


def decision_enabled(config: BitextConfig) -> bool:
    """Whether the decision has evidence to weigh (else candidates are resolved on the page
    filters' scores alone)."""
    return config.enabled and (config.content_enabled or config.evidence_enabled)


def load_filter(config: BitextConfig) -> DictionaryFilter:
    """The filter of ``BITEXT_DICTIONARY``; DictionaryConfigError (logged) if it cannot be used."""
    try:
        dic = load_dictionary(config.dictionary)
    except DictionaryError as exc:
        logger.error("BITEXT_DICTIONARY: %s", exc)
        raise DictionaryConfigError(str(exc)) from exc
    logger.info(
        "dictionary %s: %s-%s, %d word pairs (%d malformed lines skipped)",
        config.dictionary, dic.lang1, dic.lang2, len(dic), len(dic.skipped),
    )
    return DictionaryFilter(dic, config.dictionary_threshold_1, config.dictionary_threshold_2)


def _applied(candidates: list[SiteCandidate], updates: list[tuple[int, float, dict[str, Any]]],
             dropped: list[int]) -> list[SiteCandidate]:
    """``candidates`` as the store holds them after ``update_candidates(updates)`` and
    ``delete_candidates(dropped)``."""
    new = {i: (score, scores) for i, score, scores in updates}
    gone = set(dropped)
    out = []
    for c in candidates:
        if c.id in gone:
            continue
        if c.id in new:
            score, scores = new[c.id]
            c = dataclasses.replace(c, score=score, scores=scores)
        out.append(c)
    return out


class Resolver:
    """Runs the close-time sequence on a runtime's sites; see the module docstring.  Building it
    loads ``BITEXT_DICTIONARY`` when set (DictionaryConfigError if it cannot be used)."""

    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        cfg = runtime.config
        self.dictionary: DictionaryFilter | None = load_filter(cfg) if dictionary_enabled(cfg) else None
        if self.dictionary is not None:
            dic = self.dictionary.dic
            runtime.models.primer = lambda lang1, lang2: dictionary_pairs(dic, lang1, lang2)
        self.content: ContentFilter | None = ContentFilter(
            cfg, runtime.models, self.dictionary.dic if self.dictionary is not None else None,
        ) if content_enabled(cfg) else None
        self.decision = decision_enabled(cfg)
        self.runs = 0
        self._saving: threading.Thread | None = None

    def steps(self) -> list[str]:
        """The steps that run, in order (for logs and tests)."""
        names = []
        if self.content is not None:
            names.append("content")
        if self.dictionary is not None:
            names.append("dictionary")
        if self.decision:
            names.append("decision")
        names.append("one-to-one")
        if self.content is not None:
            names.append("sentences")
        return names

    # -- the sequence ---------------------------------------------------------------------------
    def run(self, sites: Iterable[SiteState], stored: Callable[[], object] | None = None,
            wait_saved: bool = True) -> Counter[str]:
        """Resolve every site in ``sites``; returns the final pairs by language pair.
        ``stored``, if given, is called once the models' save has started, before the steps read
        the store: it waits for the pages still on their way to the database, whose commit the
        crawl asked for before (it runs while the held-back training is taken).

        With ``wait_saved`` false the models' save may still run when this returns (the pairs
        and their sentences are stored by then): the crawl sends the final pairs meanwhile, and
        :meth:`wait_saved` (which the next run and the runtime's close call) waits for it."""
        self.wait_saved()
        stats = self.runtime.stats
        for key in _PER_RUN:
            if stats.get_value(key) is not None:
                stats.set_value(key, 0)
        sites = list(sites)
        if self.content is not None:
            self.content.flush_training()
        saving = self._save_models_beside(sites)
        self._saving = saving
        try:
            if stored is not None:
                stored()
            total, sentences = self._resolve_sites(sites)
        finally:
            # Also when a step raises: the save ends before the crawl closes the store.
            if wait_saved:
                self.wait_saved()
        if saving is None:
            self._save_models()
        if self.content is not None:
            for key, n in self.content.counts.items():
                stats.set_value(f"bitext/content/{key}", n)
            stats.set_value("bitext/content/sentences_stored", sentences)
            stats.set_value("bitext/sentences", sentences)
        stats.set_value("bitext/pairs", sum(total.values()))
        for langs, n in sorted(total.items()):
            stats.set_value(f"bitext/pairs/{langs}", n)
        self.runs += 1
        return total

    def _resolve_sites(self, sites: list[SiteState]) -> tuple[Counter[str], int]:
        """Steps 1-5 for each site: the final pairs by language pair, and the sentences stored."""
        store = self.runtime.store
        total: Counter[str] = Counter()
        sentences = 0
        for state in sites:
            content, dictionary = self.content, self.dictionary
            if content is not None:
                self._step(state, "content", lambda s, f=content: self._content(f, s))
            if dictionary is not None:
                self._step(state, "dictionary", lambda s, f=dictionary: self._dictionary(f, s))
            if self.decision:
                self._step(state, "decision", self._decision)
            with self._timed("one-to-one"):
                by_langs = store.resolve_site(state.site_id)
            total.update(by_langs)
            logger.info("site %s: %d pairs", state.key, sum(by_langs.values()))
            if content is not None:
                sentences += self._step(state, "sentences", lambda s, f=content: self._sentences(f, s)) or 0
        return total, sentences

    def wait_saved(self) -> None:
        """Wait for the models' save a run left going (:meth:`run`)."""
        saving, self._saving = self._saving, None
        if saving is not None:
            saving.join()

    def _save_models_beside(self, sites: list[SiteState]) -> threading.Thread | None:
        """Start saving the models' training (module docstring).  Every model a step can ask for
        (a pair of the site's languages) is read first: read during the save, a site's saved
        training could already be folded away, or a stored model already hold another site's."""
        if self.content is not None:
            models = self.runtime.models
            try:
                for state in sites:
                    langs = sorted(state.index.languages)
                    for i, lang1 in enumerate(langs):
                        for lang2 in langs[i + 1:]:
                            models.get(lang1, lang2, state.site_id)
            except Exception:
                logger.exception("reading the translation models failed; they are saved after the steps")
                return None

        thread = threading.Thread(target=self._save_models, name="bitext-save-models", daemon=True)
        thread.start()
        return thread

    def _save_models(self) -> None:
        with self._timed("models"):
            self.runtime.save_models()

    # -- the steps: read from the store, compute (matchers), write back ------------------------
    def _content(self, content: ContentFilter, state: SiteState) -> None:
        store = self.runtime.store
        # One list of the site's candidates in memory at a time (a row and a dict of scores each):
        # what the close adds to the memory of the crawl is made of such transients.  What the
        # rejudging writes is applied to it rather than read back.
        candidates = store.site_candidates(state.site_id)
        updates, dropped = content.rejudge_site(state.site_id, state.index, candidates)
        store.update_candidates(updates)
        store.delete_candidates(dropped)
        candidates = _applied(candidates, updates, dropped)
        del updates
        changed, lost = content.remutual_site(state.index, candidates)
        store.update_candidates(changed)
        store.delete_candidates(lost)
        gone = set(lost)
        # The sweep reads only which pages have a candidate in which language.
        kept = [c for c in candidates if c.id not in gone]
        del candidates, changed
        found = content.sweep_site(state.site_id, state.index, kept)
        content.count("rescued_at_close", store.add_candidates(state.site_id, found))

    def _dictionary(self, dictionary: DictionaryFilter, state: SiteState) -> None:
        store = self.runtime.store
        stats = self.runtime.stats
        # PCB's policy stands in for a resolution it does not have: with the content filter on, the
        # decision weighs the dictionary with the content and the one-to-one step picks among the
        # counterparts (with up to six content-only candidates a page, two passing the dictionary
        # is common among articles on one subject, and dropping them lost true pairs).
        drop = self.runtime.config.dictionary_drop_ambiguous and self.content is None
        judged = close_judgments(dictionary, store.site_candidates(state.site_id), state.index.content, drop,
                                 self.runtime.config.content_rescue_min_share)
        doomed = set(judged.doomed)
        store.update_candidates([u for u in judged.scored if u[0] not in doomed])
        if judged.rejected:
            stats.inc_value("bitext/dictionary/rejected", len(judged.rejected))
        if drop:
            stats.inc_value("bitext/dictionary/dropped_ambiguous", len(judged.ambiguous))
        if judged.doomed:
            store.delete_candidates(judged.doomed)
            logger.info("site %s: dictionary filter dropped %d candidates (%d of ambiguous pages)",
                        state.key, len(judged.doomed), len(judged.ambiguous))

    def _decision(self, state: SiteState) -> None:
        store = self.runtime.store
        dictionary = self.dictionary.dic if self.dictionary is not None else None
        out = decide_site(state.site_id, store.site_candidates(state.site_id), state.index, state.evidence,
                          self.runtime.models, self.runtime.config, dictionary,
                          keep_match=self.content.keep_match if self.content is not None else None,
                          save=lambda rows: store.save_decisions(state.site_id, rows))
        for k, n in out.counts.items():
            self.runtime.stats.inc_value(f"bitext/decision/{k}", n)
        counts = out.counts
        logger.info(
            "site %s: decision: %d accepted, %d rejected (%d proposed by URL keys or links, %d of them "
            "accepted; %d through a third language, %d of them accepted; %d language pairs with "
            "unsupervised structure thresholds)",
            state.key, counts["accepted"], counts["rejected"], counts["proposed"], counts["proposed_accepted"],
            counts["pivot_proposed"], counts["pivot_accepted"], out.thresholds,
        )

    def _sentences(self, content: ContentFilter, state: SiteState) -> int:
        store = self.runtime.store
        stored = store.keep_final_sentences(state.site_id)
        todo = [p for p in store.site_pairs(state.site_id) if (p[0], p[3]) not in stored]
        store.add_sentences(state.site_id, [SentenceRecord(*r) for r in content.sentences(state.site_id, state.index, todo)])
        return store.count_sentences(state.site_id)

    def _step(self, state: SiteState, name: str, step: Callable[[SiteState], Any]) -> Any:
        with self._timed(name):
            try:
                return step(state)
            except Exception:
                # A failing step must not cost the pairs already found: resolution still runs.
                logger.exception("site %s: close step %s failed", state.key, name)
                self.runtime.stats.inc_value("bitext/errors/close_step")
                return None

    @contextlib.contextmanager
    def _timed(self, name: str) -> Iterator[None]:
        start = time.monotonic()
        try:
            yield
        finally:
            key = f"bitext/time/close/{name}_s"
            stats = self.runtime.stats
            stats.set_value(key, round((stats.get_value(key) or 0.0) + time.monotonic() - start, 3))

    def final_pairs(self, site_ids: Iterable[int]) -> list[PairItem]:
        """The stored final pairs of ``site_ids`` as items, in ``bitext export pairs`` order."""
        return [
            PairItem(r.lang1, r.url1, r.lang2, r.url2, round(r.score, 6), "final")
            for r in self.runtime.store.pairs(site_ids=list(site_ids))
        ]

