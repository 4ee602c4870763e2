"""The content filter: sentence alignment under the language pair's translation model, trained
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
   ``BITEXT_CONTENT_TRAIN_MIN_SHARE``, updates the model (one incremental EM step).

When the crawl closes, pages still without a candidate in a language get step 2 again with the
final model (the pages that arrived before the model was trained), and the aligned sentences of
the final pairs are stored.  The candidate's ranking ``score`` mixes its structure similarity and
its content share, the share weighing half once the model is trained and less before (content
alone: half its share).
"""

from __future__ import annotations

import logging
from collections.abc import Container
from typing import TYPE_CHECKING, Any

import numpy as np

from bitext_spider.store.records import SentenceRecord, SiteCandidate
from matchers.content.content_match import ContentMatch, length_difference, match_content
from matchers.content.content_schedule import combined_score, is_mature, maturity, required_share
from matchers.content.translation_model import TranslationModel
from matchers.page.page_content import PageContent
from matchers.site.page_index import CandidateSet, SiteIndex

if TYPE_CHECKING:
    from bitext_spider.runtime import BitextRuntime, SiteState

logger = logging.getLogger(__name__)


class ContentFilter:
    """The stage's work, independent of Scrapy (tests drive it directly)."""

    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.models = runtime.models
        self.counts: dict[str, int] = {}
        # Content-only checks already made: page pair -> sentences the model had seen then.  The
        # close sweep repeats a check only if the model has grown by a quarter since.
        self._rescue_seen: dict[tuple[int, int], int] = {}

    def _count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    # -- at arrival ---------------------------------------------------------------------------
    def filter_page(
        self, site_id: int, index: SiteIndex, content: PageContent, candidates: list[CandidateSet]
    ) -> None:
        cfg = self.config
        by_lang = {c.lang: c for c in candidates}
        rejected: set[tuple[str, int]] = set()  # candidates content turned down: not rescued
        best: dict[str, tuple[float, ContentMatch]] = {}
        for cand in candidates:
            model = self.models.get(content.lang, cand.lang, site_id)
            others = index.index(cand.lang).content
            n = len(cand)
            share, mean = np.full(n, np.nan), np.full(n, np.nan)
            matches: list[ContentMatch | None] = []
            for k, row in enumerate(cand.rows.tolist()):
                other = others[row]
                m = self._match(model, content, other) if other is not None else None
                matches.append(m)
                if m is not None:
                    share[k], mean[k] = m.share, m.mean
            need = required_share(model, cfg.content_min_share, cfg.content_mature_sentences)
            # NaN: a page with too little main content to judge.
            keep = (share >= need) if cfg.content_required else (np.isnan(share) | (share >= need))
            ripe = maturity(model, cfg.content_mature_sentences)
            score = combined_score(cand.scores.get("structure", np.zeros(n)), share, 0.5 * ripe)
            # The maturity the share was judged at: the close re-judges young judgments.
            cand.add_scores(content_share=share, content_mean=mean, score=score,
                            content_maturity=np.full(n, ripe))
            self._count("checked", n)
            self._count("rejected", int(n - keep.sum()))
            for k in np.flatnonzero(keep).tolist():
                m = matches[k]
                if m is not None and (cand.lang not in best or score[k] > best[cand.lang][0]):
                    best[cand.lang] = (float(score[k]), m)
            rejected.update((cand.lang, r) for r in cand.rows[~keep].tolist())
            cand.narrow(keep)
        if cfg.content_rescue_at_arrival and cfg.content_rescue_candidates > 0:
            empty = [
                lang for lang in index.languages
                if lang != content.lang and not (lang in by_lang and len(by_lang[lang]))
            ]
            for lang, found in self._rescue(site_id, index, content, empty, rejected).items():
                rows, share, mean, matches = found
                cand = by_lang.get(lang)
                if cand is None:
                    cand = CandidateSet(lang=lang, rows=np.zeros(0, dtype=np.int64))
                    candidates.append(cand)
                    by_lang[lang] = cand
                score = combined_score(np.zeros(len(rows)), share)
                cand.extend(rows, content_share=share, content_mean=mean, score=score,
                            content_maturity=np.ones(len(rows)))
                self._count("rescued", len(rows))
                for k, m in enumerate(matches):
                    if lang not in best or score[k] > best[lang][0]:
                        best[lang] = (float(score[k]), m)
        for lang, (_score, m) in best.items():
            if m.share >= cfg.content_train_min_share:
                self._train(site_id, content.lang, lang, m)

    def _rescue(
        self, site_id: int, index: SiteIndex, content: PageContent, langs: list[str],
        exclude: Container[tuple[str, int]],
    ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, list[ContentMatch]]]:
        """Pages of ``langs`` that only content can pair with ``content``'s page: the closest in
        main-content length, not in ``exclude`` (language, row), under the rescue share."""
        cfg = self.config
        out: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, list[ContentMatch]]] = {}
        if not len(content):
            return out
        for lang in langs:
            lindex = index.index(lang)
            model = self.models.get(content.lang, lang, site_id)
            if not is_mature(model, cfg.content_mature_sentences):
                continue
            diff = length_difference(content.length, lindex.content_length.view())
            order = np.argsort(diff, kind="stable")
            order = order[diff[order] <= cfg.content_rescue_max_length_diff]
            order = [r for r in order.tolist() if (lang, r) not in exclude]
            rows, shares, means, matches = [], [], [], []
            for row in order[: cfg.content_rescue_candidates]:
                other = lindex.content[row]
                if other is None:
                    continue
                key = (min(id(content), id(other)), max(id(content), id(other)))
                before = self._rescue_seen.get(key)
                if before is not None and model.sentences_seen < 1.25 * before:
                    continue
                self._rescue_seen[key] = model.sentences_seen
                m = self._match(model, content, other)
                self._count("rescue_checked")
                if (m is not None and m.share >= cfg.content_rescue_min_share
                        and m.good >= cfg.content_rescue_min_sentences):
                    rows.append(row)
                    shares.append(m.share)
                    means.append(m.mean)
                    matches.append(m)
            if rows:
                out[lang] = (np.array(rows, dtype=np.int64), np.array(shares), np.array(means), matches)
        return out

    def _match(self, model: TranslationModel, a: PageContent, b: PageContent) -> ContentMatch | None:
        cfg = self.config
        return match_content(model, a, b, cfg.content_sentence_threshold, cfg.content_min_sentences)

    def _train(self, site_id: int, lang_a: str, lang_b: str, match: ContentMatch) -> None:
        model = self.models.trainable(lang_a, lang_b, site_id)
        pairs = match.training_pairs(self.config.content_sentence_threshold)
        if not pairs:
            return
        model.update(pairs)
        self._count("model_updates")
        self._count("model_sentences", len(pairs))
        self.models.updated(lang_a, lang_b, site_id)

    # -- at close -----------------------------------------------------------------------------
    def rejudge_site(self, state: SiteState, candidates: list[SiteCandidate]) -> list[SiteCandidate]:
        """Judge again, with the final model, the candidates a young model let through.

        While the model is young the required share is scaled down (the paper's "earlier filters
        stay strict"), so which wrong candidates get in depends on the order pages arrived in.
        Re-judging them with the now trained model makes the outcome what a trained model would
        have decided at arrival: a candidate below the share is dropped, as it would have been,
        and the close sweep then looks for its page's translation on content.  Takes the site's
        stored candidates and returns those still stored."""
        cfg = self.config
        store = self.runtime.store
        updates: list[tuple[int, float, dict[str, Any]]] = []
        dropped: list[int] = []
        for c in candidates:
            judged = c.scores.get("content_maturity")
            if judged is None or judged >= 1.0:
                continue
            model = self.models.get(c.lang1, c.lang2, state.site_id)
            if not is_mature(model, cfg.content_mature_sentences):
                continue  # no better judge than the one that ruled
            a, b = state.index.content(c.url1), state.index.content(c.url2)
            m = self._match(model, a, b) if a is not None and b is not None else None
            if m is None:
                continue  # too little content: the decision's veto, not the share, rules on it
            if m.share < cfg.content_min_share:
                dropped.append(c.id)
                continue
            scores = dict(c.scores, content_share=round(m.share, 6), content_mean=round(m.mean, 6),
                          content_maturity=1.0)
            structure = scores.get("structure")
            score = float(combined_score(np.array([np.nan if structure is None else structure]),
                                         np.array([m.share]))[0])
            scores["score"] = round(score, 6)
            updates.append((c.id, score, scores))
        store.update_candidates(updates)
        store.delete_candidates(dropped)
        self._count("rejudged_at_close", len(updates) + len(dropped))
        self._count("dropped_at_close", len(dropped))
        gone = set(dropped)
        return [c for c in candidates if c.id not in gone]

    def sweep_site(self, state: SiteState, candidates: list[SiteCandidate]) -> int:
        """Content-only candidates for pages left without one in a language (among the site's
        stored ``candidates``), with the final models."""
        index = state.index
        store = self.runtime.store
        has: set[tuple[str, str]] = set()
        for c in candidates:
            has.add((c.url1, c.lang2))
            has.add((c.url2, c.lang1))
        taken = _Taken(index, has)
        found: list[tuple[str, str, str, str, float, dict[str, Any]]] = []
        seen: set[frozenset[str]] = set()
        for lang, lindex in index.languages.items():
            taken.lang = lang
            for row, url in enumerate(lindex.urls):
                content = lindex.content[row]
                missing = [o for o in index.languages if o != lang and (url, o) not in has]
                if content is None or not missing:
                    continue
                for other, (rows, share, mean, _m) in self._rescue(state.site_id, index, content, missing, taken).items():
                    for k, r in enumerate(rows.tolist()):
                        other_url = index.index(other).urls[r]
                        key = frozenset((url, other_url))
                        if key in seen:
                            continue
                        seen.add(key)
                        s = float(share[k])
                        found.append((url, lang, other_url, other, 0.5 * s,
                                      dict(content_share=round(s, 6), content_mean=round(float(mean[k]), 6),
                                           score=round(0.5 * s, 6), found_at_close=1)))
        added = store.add_candidates(state.site_id, found)
        self._count("rescued_at_close", added)
        return added

    def store_sentences(self, state: SiteState) -> int:
        """Align each final pair with the final model and store its sentence pairs."""
        cfg = self.config
        records: list[SentenceRecord] = []
        for page1, url1, lang1, page2, url2, lang2 in self.runtime.store.site_pairs(state.site_id):
            a, b = state.index.content(url1), state.index.content(url2)
            if a is None or b is None:
                continue
            model = self.models.get(lang1, lang2, state.site_id)
            m = match_content(model, a, b, cfg.content_sentence_threshold)
            if m is None:
                continue
            flip = m.first is not a
            for pos, (t1, t2, prob) in enumerate(m.sentence_pairs()):
                if flip:
                    t1, t2 = t2, t1
                records.append(SentenceRecord(page1, page2, pos, lang1, lang2, t1, t2, round(prob, 6)))
        self.runtime.store.replace_sentences(state.site_id, records)
        self._count("sentences_stored", len(records))
        return len(records)


class _Taken:
    """(language, row) of pages that already have a candidate in ``lang`` (for the close sweep)."""

    def __init__(self, index: SiteIndex, has: set[tuple[str, str]]) -> None:
        self.index, self.has, self.lang = index, has, ""

    def __contains__(self, key: object) -> bool:
        other_lang, row = key  # type: ignore[misc]
        return (self.index.index(other_lang).urls[row], self.lang) in self.has
