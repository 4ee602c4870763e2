"""The content filter's judgments: sentence alignment under the language pair's translation model, trained
on the fly (matchers.content.content_match, matchers.content.sentence_align, matchers.content.translation_model).

Tomás et al., *WebMining*, section 2.3.  As each page arrives:

1. every candidate that passed the size and structure filters is aligned with the page; it stays
   when the share of aligned sentence pairs above ``BITEXT_CONTENT_SENTENCE_THRESHOLD`` reaches
   the required share.  The required share grows with what the model has seen: the paper notes
   that an untrained model cannot tell non-parallel pages apart, so while it is young the earlier
   filters decide and content only vetoes candidates with (almost) no aligned translation.
   A page with fewer than ``BITEXT_CONTENT_MIN_SENTENCES`` main-content sentences (a site map,
   a link listing) is not paired unless ``BITEXT_CONTENT_REQUIRED`` is off;
2. once the model has seen ``BITEXT_CONTENT_MATURE_SENTENCES`` sentence pairs, the pages that the
   size or structure filters turned down (translations made with another template) get a second
   chance on content alone: the few closest in main-content length, under a stricter share;
3. the best accepted candidate per language, if its share reaches
   ``BITEXT_CONTENT_TRAIN_MIN_SHARE``, trains the model: its aligned sentence pairs join the
   next incremental EM step, taken once the pairs held back add a sixteenth to what the model
   has seen (``TRAIN_BATCH_SHARE``);
4. once the model matures, the candidates it judged young are judged again, as if they arrived
   then (matchers.content.young_judgments); the close applies the verdicts.

When the crawl closes, pages still without a candidate in a language get step 2 again with the
final model, and the final pairs' sentences are stored: a trained model's alignment of a page
with its best match (and of a candidate judged again) is stored as the crawl makes it, and the
final pairs without one are aligned at close with the final model.  The candidate's ranking
``score`` mixes its structure similarity and its content share, the share weighing half once the
model is trained and less before (content alone: half its share).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import numpy as np

from matchers.content.content_candidates import ContentCandidates
from matchers.content.content_match import AlignedSentences, ContentMatch, match_content, prefix_share
from matchers.content.content_schedule import combined_score, is_mature, maturity, required_share
from matchers.content.dictionary_filter import BilingualDictionary
from matchers.content.sweep_state import SweepSearches, TakenRows
from matchers.content.training_pairs import TrainingPairs
from matchers.content.translation_model import TranslationModel
from matchers.content.young_judgments import Page, Verdict, YoungJudgments
from matchers.page.page_content import PageContent
from matchers.site.decision import ACCEPT, WEIGHTS
from matchers.site.page_index import CandidateSet, SiteIndex


class ContentSettings(Protocol):
    """The ``BITEXT_CONTENT_*`` values the filter reads (``BitextConfig`` has them)."""

    content_sentence_threshold: float
    content_min_share: float
    content_mature_sentences: int
    content_min_sentences: int
    content_required: bool
    content_rescue_min_sentences: int
    content_rescue_candidates: int
    content_rescue_at_arrival: bool
    content_rescue_min_share: float
    content_rescue_max_length_diff: float
    content_train_min_share: float
    content_date_window: int


class Models(Protocol):
    """The language pairs' translation models of a crawl (``ModelRegistry`` in the store)."""

    def get(self, lang_a: str, lang_b: str, site_id: int) -> TranslationModel: ...

    def trainable(self, lang_a: str, lang_b: str, site_id: int) -> TranslationModel: ...

    def updated(self, lang_a: str, lang_b: str, site_id: int, snapshot: bool = True) -> None: ...


class StoredPair(Protocol):
    """A stored candidate pair (``SiteCandidate`` in the store)."""

    id: int
    url1: str
    lang1: str
    url2: str
    lang2: str
    scores: dict[str, Any]


# Accepted pairs' training is held back until it adds this share of the sentence pairs the model
# has seen, then applied in one EM step.  An update costs about the size of the model's tables
# (merging the new counts, the background probabilities recomputed), not of the update: one per
# page made training grow with the square of the site, while a model that has seen N sentence
# pairs judges with at most N/16 fewer than it would have.  An untrained model (N = 0) is updated
# at once.
TRAIN_BATCH_SHARE = 1 / 16

# The share with which a mutual best of the bags of words (matchers.content.content_candidates)
# reaches the decision's acceptance on content and that alone (0.5 C + 0.2 B >= 0.4).  On the
# news-edition development site a trained model gives true pairs found so 0.46 and up, and
# edition front pages listing the same teasers 0.32-0.38.
MUTUAL_MIN_SHARE = (ACCEPT - WEIGHTS["bag"]) / WEIGHTS["content"]
# One that is not a mutual best needs BITEXT_CONTENT_RESCUE_MIN_SHARE, by default the share with
# which content alone is accepted (ACCEPT / WEIGHTS["content"] = 0.80): found only by content, it
# would otherwise be carried by a fingerprint's or an image's few hundredths (on the W3C variants
# such pairs of unrelated pages had shares of 0.61-0.78).
# Such a candidate is aligned in full only if its opening (OPENING_SENTENCES sentences of the page
# with fewer, a like part of the other; matchers.content.content_match.prefix_share) reaches
# OPENING_MIN_SHARE.  At close most candidates are pages on a neighbouring subject, with shares
# near 0: on the W3C site and the newspaper editions the openings of pairs whose whole share was
# 0.6 or more scored 0.23 or more, while 70% of the others scored under 0.1 and were settled at a
# ninth of an alignment's cost.
OPENING_SENTENCES = 8
OPENING_MIN_SHARE = 0.1
# Young candidates judged again per page once their model matures (a model maturing brings all
# its young candidates due at once; spread, they do not hold up one page).  The close takes the rest.
REJUDGE_PER_PAGE = 16

# A candidate's new judgment at close: (candidate id, ranking score, all its scores).
Rejudged = tuple[int, float, dict[str, Any]]
# A candidate found at close: (url1, lang1, url2, lang2, ranking score, scores).
FoundPair = tuple[str, str, str, str, float, dict[str, Any]]
# A stored final pair: (page1 id, url1, lang1, page2 id, url2, lang2).
FinalPair = tuple[int, str, str, int, str, str]
# An aligned sentence pair of a final pair: (page1 id, page2 id, position, lang1, lang2, text1,
# text2, probability).
SentencePair = tuple[int, int, int, str, str, str, str, float]


class ContentFilter:
    """The filter's state over a crawl (what each check found, the checks already made); the
    crawl's pipeline calls :meth:`filter_page` as pages arrive, bitext_spider.resolution the
    close-time methods, and stores what they return."""

    def __init__(self, config: ContentSettings, models: Models, dictionary: BilingualDictionary | None = None) -> None:
        self.config = config
        self.models = models
        self.finder = ContentCandidates(dictionary, window=config.content_date_window,
                                        max_length_diff=config.content_rescue_max_length_diff)
        self.counts: dict[str, int] = {}
        # Content-only checks already made: page pair -> sentences the model had seen then.  The
        # close sweep repeats a check only if the model has grown by a quarter since.
        self._rescue_seen: dict[tuple[int, int], int] = {}
        # Training not yet applied, per (site, sorted language pair).
        self._batches: dict[tuple[int, str, str], _Batch] = {}
        # Alignments made at close with a final model (re-judged and swept pairs): the sentences
        # step takes a final pair's from here instead of aligning it again.  Keyed by the two
        # pages' content objects; valid while the model has seen no more sentences.
        self._close_matches: dict[frozenset[int], tuple[TranslationModel, int, AlignedSentences]] = {}
        self.young = YoungJudgments()

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    # -- at arrival ---------------------------------------------------------------------------
    def filter_page(
        self, site_id: int, index: SiteIndex, content: PageContent, candidates: list[CandidateSet],
        day: int | None = None, visible: dict[str, int] | None = None,
    ) -> list[tuple[str, int, AlignedSentences]]:
        """Judge the new page's candidates (narrowed in place, scores added).  Returns the page's
        best accepted match per language as ``(language, row, sentences)`` when a trained model
        made it, for the caller to store: the final pairs' sentences are then already stored."""
        cfg = self.config
        by_lang = {c.lang: c for c in candidates}
        rejected: set[tuple[str, int]] = set()  # candidates content turned down: not rescued
        best: dict[str, tuple[float, ContentMatch, int]] = {}
        for cand in candidates:
            model = self.models.get(content.lang, cand.lang, site_id)
            others = index.index(cand.lang).content
            n = len(cand)
            share, mean = np.full(n, np.nan), np.full(n, np.nan)
            same = np.zeros(n, dtype=bool)
            matches: list[ContentMatch | None] = []
            for k, row in enumerate(cand.rows.tolist()):
                other = others[row]
                same[k] = other is not None and other.text_key == content.text_key
                m = self._match(model, content, other) if other is not None and not same[k] else None
                matches.append(m)
                if m is not None:
                    share[k], mean[k] = m.share, m.mean
            need = required_share(model, cfg.content_min_share, cfg.content_mature_sentences)
            # NaN: a page with too little main content to judge.
            keep = (share >= need) if cfg.content_required else (np.isnan(share) | (share >= need))
            keep &= ~same  # the same text in both languages (matchers.content.hard_rules)
            if same.any():
                self.count("same_text", int(same.sum()))
            ripe = maturity(model, cfg.content_mature_sentences)
            score = combined_score(cand.scores.get("structure", np.zeros(n)), share, 0.5 * ripe)
            # The maturity the share was judged at: the close re-judges young judgments.
            cand.add_scores(content_share=share, content_mean=mean, score=score,
                            content_maturity=np.full(n, ripe))
            self.count("checked", n)
            self.count("rejected", int(n - keep.sum()))
            for k in np.flatnonzero(keep).tolist():
                m = matches[k]
                if m is not None and (cand.lang not in best or score[k] > best[cand.lang][0]):
                    best[cand.lang] = (float(score[k]), m, int(cand.rows[k]))
            rejected.update((cand.lang, r) for r in cand.rows[~keep].tolist())
            cand.narrow(keep)
        # A page no other filter found a candidate for in any language has a template no other
        # page shares (a newspaper edition's article): its candidates come from content now.
        alone = not any(len(c) for c in candidates)
        if (cfg.content_rescue_at_arrival or alone) and cfg.content_rescue_candidates > 0:
            empty = [
                lang for lang in index.languages
                if lang != content.lang and not (lang in by_lang and len(by_lang[lang]))
            ]
            # A page searched only because it is alone takes mutual bests now; other candidates are
            # left to the close sweep, when every page is in and the best may be another.
            found_by_lang = self._rescue(site_id, index, content, empty, partial(_rows_mask, rejected), day, young=True,
                                         mutual_only=not cfg.content_rescue_at_arrival, visible=visible)
            for lang, found in found_by_lang.items():
                cand = by_lang.get(lang)
                if cand is None:
                    cand = CandidateSet(lang=lang, rows=np.zeros(0, dtype=np.int64))
                    candidates.append(cand)
                    by_lang[lang] = cand
                score = combined_score(np.zeros(len(found.rows)), found.share)
                cand.extend(found.rows, content_share=found.share, content_mean=found.mean, score=score,
                            content_maturity=np.full(len(found.rows), found.maturity),
                            bag=found.cosine, bag_mutual=found.mutual)
                self.count("rescued", len(found.rows))
                for k, m in enumerate(found.matches):
                    if lang not in best or score[k] > best[lang][0]:
                        best[lang] = (float(score[k]), m, int(found.rows[k]))
        aligned = []
        for lang, (_score, m, row) in best.items():
            if is_mature(self.models.get(content.lang, lang, site_id), cfg.content_mature_sentences):
                aligned.append((lang, row, m.aligned()))
            if m.share >= cfg.content_train_min_share:
                self._train(site_id, content.lang, lang, m)
        return aligned

    def _rescue(
        self, site_id: int, index: SiteIndex, content: PageContent, langs: list[str],
        exclude: Callable[[str], np.ndarray | None], day: int | None, young: bool = False,
        mutual_only: bool = False,
        visible: dict[str, int] | None = None, looked: dict[str, list[int]] | None = None,
    ) -> dict[str, _Rescued]:
        """Pages of ``langs`` that only content can pair with ``content``'s page (published on
        ``day``): the closest in translated bag of words (matchers.content.content_candidates), not
        excluded by ``exclude(lang)`` (a boolean mask over the rows of ``lang``).  With a trained model a pair needs the rescue share; before,
        with ``young`` (as pages arrive, where such pairs are what trains a model no template
        match will), only a mutual best is aligned, and needs the share scaled by the model's
        maturity; without ``young`` a language pair whose model is young is not searched (at
        close, where such a pair would only stand in the way of evidence from a third language).
        ``looked`` gets, per language searched, the rows the search's result depends on
        (ContentCandidates.find)."""
        cfg = self.config
        out: dict[str, _Rescued] = {}
        if content.worded_sentences < cfg.content_rescue_min_sentences:
            return out
        for lang in langs:
            lindex = index.index(lang)
            model = self.models.get(content.lang, lang, site_id)
            mature = is_mature(model, cfg.content_mature_sentences)
            if not mature and not young:
                continue
            # A mutual best of the bags needs the share with which it is accepted on content and
            # that alone: weak evidence (fingerprints, images) must not carry a weak share.
            need = cfg.content_rescue_min_share if mature else required_share(
                model, cfg.content_rescue_min_share, cfg.content_mature_sentences)
            need_mutual = min(need, MUTUAL_MIN_SHARE * maturity(model, cfg.content_mature_sentences))
            found = self.finder.find(index, content, day, lang, cfg.content_rescue_candidates,
                                     exclude=exclude(lang), visible=visible,
                                     looked=looked.setdefault(lang, []) if looked is not None else None)
            rescued = _Rescued(maturity(model, cfg.content_mature_sentences))
            for cand in found:
                if (mutual_only or not mature) and not cand.mutual:
                    continue
                row = cand.row
                other = lindex.content[row]
                if other is None or other.worded_sentences < cfg.content_rescue_min_sentences:
                    continue
                if other is None or other.text_key == content.text_key:
                    continue
                key = (min(content.uid, other.uid), max(content.uid, other.uid))
                before = self._rescue_seen.get(key)
                if before is not None and model.sentences_seen < 1.25 * before:
                    continue
                self._rescue_seen[key] = model.sentences_seen
                if not cand.mutual:
                    opening = prefix_share(model, content, other, cfg.content_sentence_threshold, OPENING_SENTENCES)
                    if opening is not None and opening < OPENING_MIN_SHARE:
                        self.count("rescue_screened")
                        continue
                m = self._match(model, content, other)
                self.count("rescue_checked")
                if (m is not None and m.share >= (need_mutual if cand.mutual else need)
                        and m.good >= cfg.content_rescue_min_sentences):
                    rescued.add(row, m, cand.cosine, cand.mutual)
                    if not young:
                        self.keep_match(model, m)
            if rescued.matches:
                out[lang] = rescued
        return out

    def _match(self, model: TranslationModel, a: PageContent, b: PageContent) -> ContentMatch | None:
        cfg = self.config
        return match_content(model, a, b, cfg.content_sentence_threshold, cfg.content_min_sentences)

    def keep_match(self, model: TranslationModel, m: ContentMatch) -> None:
        """Keep an alignment made at close with a final model for the sentences step (its
        sentence pairs only: the beads weigh a hundred times more)."""
        self._close_matches[frozenset((m.first.uid, m.second.uid))] = (model, model.sentences_seen, m.aligned())

    def _close_match(self, model: TranslationModel, a: PageContent, b: PageContent) -> AlignedSentences | None:
        kept = self._close_matches.pop(frozenset((a.uid, b.uid)), None)
        if kept is None or kept[0] is not model or kept[1] != model.sentences_seen:
            return None
        m = kept[2]
        return m if {m.first.uid, m.second.uid} == {a.uid, b.uid} else None

    def _train(self, site_id: int, lang_a: str, lang_b: str, match: ContentMatch) -> None:
        pairs = match.training_pairs(self.config.content_sentence_threshold)
        if not pairs:
            return
        self.count("model_updates")
        # The pairs are in the model's language order whichever page arrived first.
        key = (site_id, *sorted((lang_a, lang_b)))
        batch = self._batches.setdefault(key, _Batch())
        batch.pairs.append(pairs)
        batch.sentences += len(pairs)
        batch.documents += 1
        if batch.sentences >= TRAIN_BATCH_SHARE * self.models.get(lang_a, lang_b, site_id).sentences_seen:
            self._flush(key)

    def _flush(self, key: tuple[int, str, str], snapshot: bool = True) -> None:
        batch = self._batches.pop(key, None)
        if batch is None:
            return
        site_id, lang_a, lang_b = key
        self.models.trainable(lang_a, lang_b, site_id).update_pairs(batch.pairs, documents=batch.documents)
        self.count("model_sentences", batch.sentences)
        self.models.updated(lang_a, lang_b, site_id, snapshot=snapshot)

    def flush_training(self, site_id: int | None = None) -> None:
        """Train the models on the pairs held back (those of ``site_id``, or all): before the
        close-time steps, which judge with the final models, and before the models are saved
        (no snapshot: it would read, add to and write the row the save then writes again)."""
        for key in sorted(k for k in self._batches if site_id is None or k[0] == site_id):
            self._flush(key, snapshot=False)

    def note_young(self, site_id: int, page: Page, candidates: Iterable[CandidateSet]) -> None:
        """Note the candidates of the page at ``page`` that :meth:`filter_page` judged with a young
        model, for :meth:`rejudge_matured` once the model matures."""
        for cand in candidates:
            judged = cand.scores.get("content_maturity")
            if judged is None:
                continue
            for row, ripe in zip(cand.rows.tolist(), np.asarray(judged).tolist(), strict=True):
                if ripe < 1.0:
                    self.young.add(site_id, page, (cand.lang, row))

    def rejudge_matured(
        self, site_id: int, index: SiteIndex, limit: int = REJUDGE_PER_PAGE
    ) -> list[tuple[Page, Page, AlignedSentences]]:
        """Judge up to ``limit`` of the site's young candidates whose model has matured since, as
        a candidate arriving now would be (the close applies the verdicts).  Returns the accepted
        ones' alignments, the first page's sentences first, to be stored as an arrival's are."""
        cfg = self.config
        for lang_a, lang_b in self.young.waiting(site_id):
            if is_mature(self.models.get(lang_a, lang_b, site_id), cfg.content_mature_sentences):
                self.young.matured(site_id, lang_a, lang_b)
        out: list[tuple[Page, Page, AlignedSentences]] = []
        for page, other in self.young.take_due(site_id, limit):
            a, b = index.index(page[0]).content[page[1]], index.index(other[0]).content[other[1]]
            if a is None or b is None:
                continue
            m = self._match(self.models.get(page[0], other[0], site_id), a, b)
            self.count("rejudged_at_maturity")
            self.young.judged(site_id, a.uid, b.uid, Verdict(None, None) if m is None else Verdict(m.share, m.mean))
            if m is None:
                continue
            if m.share < cfg.content_min_share:
                self.count("dropped_at_maturity")
                continue
            out.append((page, other, m.aligned().starting_with(a.uid)))
        return out

    # -- at close -----------------------------------------------------------------------------
    def rejudge_site(
        self, site_id: int, index: SiteIndex, candidates: Iterable[StoredPair]
    ) -> tuple[list[Rejudged], list[int]]:
        """Judge again the candidates a young model let through (its required share is scaled
        down, so which wrong ones get in hangs on arrival order): the verdicts of
        :meth:`rejudge_matured`, and the final model's for the others when it has seen more than
        the one that ruled, at the share its maturity requires.  A candidate below it is dropped,
        as it would have been at arrival, and the close sweep then looks for its page's
        translation.  Returns the new judgments and the ids of the candidates to drop."""
        cfg = self.config
        updates: list[tuple[int, float, dict[str, Any]]] = []
        dropped: list[int] = []
        aligned = 0
        self._close_matches.clear()
        for c in candidates:
            judged = c.scores.get("content_maturity")
            if judged is None or judged >= 1.0:
                continue
            model = self.models.get(c.lang1, c.lang2, site_id)
            ripe = maturity(model, cfg.content_mature_sentences)
            if ripe <= judged:
                continue  # no better judge than the one that ruled
            a, b = index.content(c.url1), index.content(c.url2)
            if a is None or b is None:
                continue
            # Judged as the model matured (the sentences of an accepted one are stored), or now;
            # a model still young judges as it would have at arrival.
            verdict = self.young.verdict(site_id, a.uid, b.uid)
            need = required_share(model, cfg.content_min_share, cfg.content_mature_sentences)
            if verdict is None:
                m = self._match(model, a, b)
                verdict = Verdict(None, None) if m is None else Verdict(m.share, m.mean)
                aligned += 1
                if m is not None and m.share >= need:
                    self.keep_match(model, m)
            share, mean = verdict.share, verdict.mean
            if share is None or mean is None:
                continue  # too little content: the decision's veto, not the share, rules on it
            if share < need:
                dropped.append(c.id)
                continue
            scores = dict(c.scores, content_share=round(share, 6), content_mean=round(mean, 6),
                          content_maturity=round(ripe, 6))
            structure = scores.get("structure")
            score = float(combined_score(np.array([np.nan if structure is None else structure]),
                                         np.array([share]))[0])
            scores["score"] = round(score, 6)
            updates.append((c.id, score, scores))
        self.young.forget_site(site_id)
        self.count("rejudged_at_close", aligned)
        self.count("dropped_at_close", len(dropped))
        return updates, dropped

    def remutual_site(self, index: SiteIndex, candidates: Iterable[StoredPair]) -> tuple[list[Rejudged], list[int]]:
        """The mutual-best flag of the candidates found on content alone, with every page in: at
        arrival a page's best is the best of the pages fetched so far, and its translation may
        have come later.  Returns the candidates whose flag changed, and the ids of those to drop:
        taken as mutual bests, no longer mutual, and under the share a content-only candidate
        that is not one needs."""
        cfg = self.config
        updates: list[Rejudged] = []
        dropped: list[int] = []
        for c in candidates:
            before = c.scores.get("bag_mutual")
            if before is None:
                continue
            now = self.finder.is_mutual(index, c.url1, c.url2)
            if now is None or float(now) == before:
                continue
            share = c.scores.get("content_share")
            if (not now and "structure" not in c.scores and isinstance(share, (int, float))
                    and share < cfg.content_rescue_min_share):
                dropped.append(c.id)
                continue
            scores = dict(c.scores, bag_mutual=float(now))
            updates.append((c.id, float(scores.get("score", 0.0)), scores))
        self.count("mutual_changed_at_close", len(updates) + len(dropped))
        self.count("mutual_dropped_at_close", len(dropped))
        return updates, dropped

    def sweep_site(self, site_id: int, index: SiteIndex, candidates: Iterable[StoredPair]) -> list[FoundPair]:
        """Content-only candidates for pages left without one in a language (among the site's
        stored ``candidates``), with the final models.  The caller stores them and counts the
        new ones as ``rescued_at_close``.

        A page's search skips the pages that already have a candidate in its language, so the
        candidates one pass finds can let the next pass reach further: passes repeat until one
        finds nothing, which makes the result a fixed point (sweeping again, as a resumed crawl
        does, finds nothing more)."""
        has: set[tuple[str, str]] = set()
        for c in candidates:
            has.add((c.url1, c.lang2))
            has.add((c.url2, c.lang1))
        found: list[FoundPair] = []
        seen: set[frozenset[str]] = set()
        searches = SweepSearches()
        while True:
            with self.finder.index_fixed():
                new = self._sweep_pass(site_id, index, has, seen, searches)
            if not new:
                return found
            found += new
            searches.passes += 1
            for url, lang, other_url, other, *_ in new:
                has.add((url, other))
                has.add((other_url, lang))
                searches.taken(index, url, other)
                searches.taken(index, other_url, lang)

    def _sweep_pass(
        self, site_id: int, index: SiteIndex, has: set[tuple[str, str]], seen: set[frozenset[str]],
        searches: SweepSearches,
    ) -> list[FoundPair]:
        taken = TakenRows(index, has)
        found: list[FoundPair] = []
        for lang, lindex in index.languages.items():
            taken.lang = lang
            for row, url in enumerate(lindex.urls):
                missing = [o for o in index.languages
                           if o != lang and (url, o) not in has and searches.changed(lang, row, o)]
                # Only for a page with a search to make: an older page's content is read from disk.
                content = lindex.content[row] if missing else None
                if content is None:
                    continue
                day = index.bags.day(lang, row)
                looked: dict[str, list[int]] = {}
                rescued = self._rescue(site_id, index, content, missing, taken.mask, day, looked=looked)
                searches.searched(lang, row, missing, looked)
                for other, got in rescued.items():
                    for k, r in enumerate(got.rows.tolist()):
                        other_url = index.index(other).urls[r]
                        key = frozenset((url, other_url))
                        if key in seen:
                            continue
                        seen.add(key)
                        s = float(got.share[k])
                        scores = dict(content_share=round(s, 6), content_mean=round(float(got.mean[k]), 6),
                                      score=round(0.5 * s, 6), found_at_close=1, bag_mutual=float(got.mutual[k]),
                                      content_maturity=round(got.maturity, 6))
                        if got.cosine[k] == got.cosine[k]:
                            scores["bag"] = round(float(got.cosine[k]), 6)
                        found.append((url, lang, other_url, other, 0.5 * s, scores))
        return found

    def sentences(self, site_id: int, index: SiteIndex, pairs: Iterable[FinalPair]) -> list[SentencePair]:
        """The sentence pairs of final pairs whose sentences are not stored yet (their pages'
        alignment at arrival was made by a young model, or is not the final pair), aligned with
        the final model."""
        cfg = self.config
        records: list[SentencePair] = []
        for page1, url1, lang1, page2, url2, lang2 in pairs:
            a, b = index.content(url1), index.content(url2)
            if a is None or b is None:
                continue
            model = self.models.get(lang1, lang2, site_id)
            m: ContentMatch | AlignedSentences | None = self._close_match(model, a, b)
            if m is None:
                m = match_content(model, a, b, cfg.content_sentence_threshold)
                self.count("sentences_aligned_at_close")
            else:
                self.count("sentences_reused_at_close")
            if m is None:
                continue
            flip = m.first.uid != a.uid
            for pos, (t1, t2, prob) in enumerate(m.sentence_pairs()):
                if flip:
                    t1, t2 = t2, t1
                records.append((page1, page2, pos, lang1, lang2, t1, t2, round(prob, 6)))
        self._close_matches.clear()
        return records


@dataclass
class _Rescued:
    """What :meth:`ContentFilter._rescue` found in one language, as columns."""

    maturity: float
    matches: list[ContentMatch] = field(default_factory=list)
    _found: list[tuple[int, float, float]] = field(default_factory=list)  # row, cosine, mutual

    def add(self, row: int, m: ContentMatch, cosine: float, mutual: bool) -> None:
        self.matches.append(m)
        self._found.append((row, cosine, float(mutual)))

    @property
    def rows(self) -> np.ndarray:
        return np.array([f[0] for f in self._found], dtype=np.int64)

    @property
    def share(self) -> np.ndarray:
        return np.array([m.share for m in self.matches])

    @property
    def mean(self) -> np.ndarray:
        return np.array([m.mean for m in self.matches])

    @property
    def cosine(self) -> np.ndarray:
        return np.array([f[1] for f in self._found])

    @property
    def mutual(self) -> np.ndarray:
        return np.array([f[2] for f in self._found])


@dataclass
class _Batch:
    pairs: list[TrainingPairs] = field(default_factory=list)
    sentences: int = 0
    documents: int = 0


def _rows_mask(rows: set[tuple[str, int]], lang: str) -> np.ndarray:
    """The rows of ``lang`` among ``rows`` (language, row), as a boolean mask."""
    mine = [r for lg, r in rows if lg == lang]
    mask = np.zeros(max(mine, default=-1) + 1, dtype=bool)
    mask[mine] = True
    return mask
