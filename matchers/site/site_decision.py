"""The combined decision of a site: when the crawl closes, every candidate pair of a site gets every
piece of evidence and one decision (matchers.site.decision); only accepted candidates go on to the
one-to-one resolution.  :func:`decide_site` computes it from plain data (the site's stored
candidates, its index, evidence and models); step 3 of the close-time sequence
(bitext_spider.resolution) reads the candidates and stores the decisions, whenever the settings
give it evidence to weigh.

The candidates are those the page-by-page filters stored (size + structure + content, or content
alone), plus the pairs only site-wide evidence can propose: URL pairing keys (Kit & Ng) and
cross-language links (hreflang, switchers, mutual links).  For those the structure and content
evidence is computed here, with the final models.  Jangeldin & Assylbekov's unsupervised
structure threshold (Algorithm 1) replaces the fixed one for a language pair once the site has
``BITEXT_THRESHOLD_MIN_PAIRS`` candidates of it.  Near-duplicates (ILSP-FC 3.8) are vetoed so a
copy does not take its original's translation.

With both the content filter and the site evidence off (``BITEXT_CONTENT_ENABLED=False``,
``BITEXT_EVIDENCE_ENABLED=False``) there is nothing to weigh: the stage is off, and the
candidates are resolved on the page filters' scores alone (WebMining, section 2).
"""


from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from matchers.content.content_filter import Models, StoredPair
from matchers.content.content_match import ContentMatch, match_content
from matchers.content.content_schedule import maturity
from matchers.content.translation_model import TranslationModel
from matchers.site.decision import Evidence, decide, user_scores
from matchers.site.image_evidence import depth_ok, image_jaccard, ratio
from matchers.site.link_evidence import has_link_evidence, link_score
from matchers.site.one_to_one import Scored, resolve_one_to_one
from matchers.site.page_index import SiteIndex
from matchers.site.pivot_pairs import PivotProposal, pivot_proposals
from matchers.site.site_evidence import SiteEvidence
from matchers.site.slug_translation import (
    Translate,
    dictionary_translate,
    model_translate,
    slug_score,
    slug_words,
    unshared_words,
)
from matchers.structure.fingerprint import FingerprintShape, shape_distance_ratio
from matchers.structure.structure_threshold import scaled_limits, similarity
from matchers.structure.unsupervised_threshold import (
    PairFeatures,
    SequenceShape,
    accept,
    enough_candidates,
    estimate_threshold,
    shape,
    shape_features,
)

_MIN_FP_PARAGRAPHS = 3
_SHAPE_CACHE = 8192  # pages' structure symbols kept for the decision's threshold estimate
# Paragraph-count and token-length ratios under which shared images are no evidence (ILSP-FC 3.9;
# on the W3C site 0.5 keeps 99.5% and 94.6% of the gold pairs, benchmarks/ilsp_evidence_eval.py).
_MIN_RATIO = 0.5

# Link evidence this strong (an hreflang or language-switcher link) is the site's own statement
# that two pages are translations, so it pairs pages without main content too.
_EXPLICIT_LINK = 0.7


class Dictionary(Protocol):
    """A bilingual dictionary (matchers.content.dictionary_filter.BilingualDictionary)."""

    def covers(self, l1: str, l2: str) -> bool: ...

    def translations(self, word: str, from_lang: str) -> frozenset[str]: ...


class DecisionSettings(Protocol):
    """The settings the decision reads (``BitextConfig`` has them)."""

    content_enabled: bool
    content_required: bool
    content_sentence_threshold: float
    content_min_sentences: int
    content_mature_sentences: int
    structure_max_ratio: float
    threshold_min_pairs: int
    threshold_step: float
    threshold_delta: float


@dataclass
class ProposedPair:
    """A pair only site-wide evidence proposes (not stored yet: ``id`` -1)."""

    url1: str
    lang1: str
    url2: str
    lang2: str
    id: int = -1
    scores: dict[str, Any] = field(default_factory=lambda: {"proposed": 1})


# One candidate's decision, as the store saves it: (candidate id or -1 for a proposed pair, url1,
# lang1, url2, lang2, decision score, all its scores, accepted).
Decided = tuple[int, str, str, str, str, float, dict[str, Any], bool]


@dataclass
class SiteDecisions:
    """What :func:`decide_site` decided for a site."""

    decided: list[Decided]
    counts: dict[str, int]  # accepted, rejected, proposed (_accepted), pivot_proposed (_accepted)
    thresholds: int  # language pairs with an unsupervised structure threshold


def _structure(index: SiteIndex, max_ratio: float, url_a: str, url_b: str) -> tuple[float | None, bool]:
    """Similarity under the fixed threshold for a pair the structure filter never compared."""
    where_a, where_b = index.locate(url_a), index.locate(url_b)
    if where_a is None or where_b is None:
        return None, False
    store_a = index.index(where_a[0]).tags
    store_b = index.index(where_b[0]).tags
    tokens_a = store_a.tokens(where_a[1])
    rows = np.array([where_b[1]], dtype=np.int64)
    other_len = store_b.lengths[rows]
    limits = scaled_limits(len(tokens_a), other_len, max_ratio)
    d = store_b.distances(tokens_a, rows, limits, encoded=True).astype(np.int64)  # one site's codes
    if d[0] > limits[0]:
        return None, True
    return float(similarity(d, len(tokens_a), other_len)[0]), False


def _supported(ev: SiteEvidence, url_a: str, url_b: str) -> bool:
    """Whether the evidence that proposes a pair scores it at all.  A plain one-way link (every
    page's link to the other language's home page) proposes a pair with a link score of 0 and no
    URL key: aligning its content and comparing its structure would decide nothing the page
    filters have not, at the price of a content alignment per page of the site."""
    pa, pb = ev.pages.get(url_a), ev.pages.get(url_b)
    if pa is None or pb is None:
        return False
    if ev.url_keys.key_score(url_a, url_b) > 0:
        return True
    return has_link_evidence(pa.links, pb.links, inlink_count=ev.inlink_count)


def _unordered(a: str, b: str) -> tuple[str, str]:
    """A pair of URLs as one key either way round (a tuple is a quarter of a frozenset's size)."""
    return (a, b) if a <= b else (b, a)


def _tokens(index: SiteIndex, url: str) -> np.ndarray | None:
    where = index.locate(url)
    if where is None:
        return None
    return index.index(where[0]).tags.tokens(where[1])


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def decide_site(
    site_id: int, candidates: Iterable[StoredPair], index: SiteIndex, ev: SiteEvidence, models: Models,
    cfg: DecisionSettings, dictionary: Dictionary | None = None,
    keep_match: Callable[[TranslationModel, ContentMatch], None] | None = None,
    save: Callable[[list[Decided]], None] | None = None, save_every: int = 2000,
) -> SiteDecisions:
    """Every stored candidate of the site, every pair its URL keys and links propose, and the pairs
    the accepted ones propose through a third language (matchers.site.pivot_pairs), with all
    evidence and one decision.  ``keep_match`` receives the alignment of each accepted pair that
    was aligned here (with the model it was made with), for its sentences to be stored from.

    With ``save``, the decisions are handed to it ``save_every`` at a time as they are made and
    the result's ``decided`` is empty: a decision carries every piece of evidence, and a large
    site's would otherwise all be held until the end."""
    ev.url_keys.recompute()
    near = ev.near_duplicates()
    aliases = ev.aliases()
    rows: list[StoredPair | ProposedPair] = []
    # A pair an earlier run proposed through a third language is judged again in that step, with
    # the pivots the pairs of this run give (or none).
    by_pivot: dict[tuple[str, str], StoredPair] = {}
    for c in candidates:
        if "pivot" in c.scores:
            by_pivot[_unordered(c.url1, c.url2)] = c
        else:
            rows.append(c)
    known = {_unordered(c.url1, c.url2) for c in rows}
    # Pairs only site-wide evidence proposes.
    proposed: set[tuple[str, str]] = set()
    for a, b, *_ in ev.url_keys.pairs():
        proposed.add((a, b))
    proposed |= ev.linked_pairs()
    extra: list[ProposedPair] = []
    for a, b in sorted(proposed):
        if _unordered(a, b) in known:
            continue
        wa, wb = index.locate(a), index.locate(b)
        if wa is None or wb is None or wa[0] == wb[0] or not _supported(ev, a, b):
            continue
        extra.append(ProposedPair(a, wa[0], b, wb[0]))
    # Unsupervised structure thresholds per language pair (Algorithm 1).
    feats: dict[int, PairFeatures] = {}
    by_langs: dict[tuple[str, str], list[int]] = {}
    everything = rows + extra
    known.update(_unordered(c.url1, c.url2) for c in extra)

    # A page is in up to 5 candidates per language.  A bounded cache keeps that reuse on sites up
    # to its size; on larger ones a page's symbols are sometimes computed again, which costs less
    # than holding every page's until the end of the decision.
    @functools.lru_cache(maxsize=_SHAPE_CACHE)
    def shape_of(url: str) -> SequenceShape | None:
        tokens = _tokens(index, url)
        return None if tokens is None else shape(tokens)

    for i, c in enumerate(everything):
        (l1, u1), (l2, u2) = sorted(((c.lang1, c.url1), (c.lang2, c.url2)))
        sa, sb = shape_of(u1), shape_of(u2)
        if sa is None or sb is None:
            continue
        try:
            feats[i] = shape_features(sa, sb)
        except ValueError:
            continue
        by_langs.setdefault((l1, l2), []).append(i)
    shape_of.cache_clear()

    # A page's fingerprint, bucketed and its paragraphs counted once for its candidates.
    @functools.lru_cache(maxsize=_SHAPE_CACHE)
    def fingerprint_of(url: str) -> FingerprintShape:
        return FingerprintShape(ev.pages[url].fingerprint)

    thresholds = {}
    for langs, members in by_langs.items():
        sample = [feats[i] for i in members]
        if enough_candidates(sample, cfg.threshold_min_pairs):
            with contextlib.suppress(ValueError):  # no pair with P_d = 0: fixed thresholds stay
                thresholds[langs] = estimate_threshold(sample, cfg.threshold_step, cfg.threshold_delta)
    translators: dict[tuple[str, str], Translate] = {}
    slugs: dict[str, tuple[str, ...]] = {}

    def url_words(url: str) -> tuple[str, ...]:
        words = slugs.get(url)
        if words is None:
            words = slugs[url] = slug_words(url)
        return words

    # Each language pair's slug words, looked up in one table when its translator is made.
    slug_vocab: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    for c in everything:
        only_a, only_b = unshared_words(url_words(c.url1), url_words(c.url2))
        if only_a and only_b:
            vocab = slug_vocab.setdefault((c.lang1, c.lang2), (set(), set()))
            vocab[0].update(only_a)
            vocab[1].update(only_b)

    def translator(lang1: str, lang2: str, model: TranslationModel) -> Translate:
        key = (lang1, lang2)
        if key not in translators:
            by_model = model_translate(model)
            vocab = slug_vocab.pop(key, None)
            if vocab is not None:
                by_model.prepare(sorted(vocab[0]), sorted(vocab[1]))
            translate: Translate = by_model
            if dictionary is not None and dictionary.covers(lang1, lang2):
                translate = dictionary_translate(lambda w, lang=lang1: dictionary.translations(w, lang), translate)
            translators[key] = translate
        return translators[key]

    decided: list[Decided] = []
    score_of: dict[tuple[str, str], float] = {}  # accepted pairs
    counts = {"accepted": 0, "rejected": 0, "proposed": 0, "proposed_accepted": 0, "pivot_proposed": 0,
              "pivot_accepted": 0}

    def judge(i: int, c: StoredPair | ProposedPair, pivot: PivotProposal | None = None) -> bool:
        scores = dict(c.scores)
        is_new = c.id < 0
        if is_new:
            sim, failed = _structure(index, cfg.structure_max_ratio, c.url1, c.url2)
            if sim is not None:
                scores["structure"] = round(sim, 6)
        else:
            sim = scores.get("structure")
            failed = sim is None and "edit_distance" in scores
        langs = tuple(sorted((c.lang1, c.lang2)))
        if langs in thresholds and i in feats:
            f, result = feats[i], thresholds[langs]
            scores["p_d"], scores["l_d"] = round(f.p_d, 6), round(f.l_d, 6)
            scores["l_d_threshold"] = round(result.threshold, 6)
            ok = accept(f, result)
            failed = not ok
            sim = (1.0 - f.p_d) if ok else None
        # The contents themselves only for an alignment: an older page's is read from disk.
        a_content, b_content = index.content_summary(c.url1), index.content_summary(c.url2)
        model = models.get(c.lang1, c.lang2, site_id)
        share = scores.get("content_share")
        too_little = False
        m = None
        if not cfg.content_enabled:
            pass  # no content stage, so no content evidence either way
        elif a_content is None or b_content is None:
            too_little = True
        elif is_new or share is None:
            a_full, b_full = index.content(c.url1), index.content(c.url2)
            assert a_full is not None and b_full is not None
            m = match_content(model, a_full, b_full, cfg.content_sentence_threshold, cfg.content_min_sentences)
            if m is None:
                too_little = cfg.content_enabled
            else:
                share = m.share
                scores["content_share"], scores["content_mean"] = round(m.share, 6), round(m.mean, 6)
        pa, pb = ev.pages.get(c.url1), ev.pages.get(c.url2)
        link = url_key = images = fp = None
        if pa is not None and pb is not None:
            link, parts = link_score(pa.links, pb.links, inlink_count=ev.inlink_count)
            url_key = ev.url_keys.key_score(c.url1, c.url2)
            # ILSP-FC 3.9: images count for pages at neighbouring depths whose paragraph counts
            # and text lengths are alike.
            fa, fb = fingerprint_of(c.url1), fingerprint_of(c.url2)
            if (depth_ok(c.url1, c.url2) and a_content is not None and b_content is not None
                    and ratio(fa.paragraphs, fb.paragraphs) >= _MIN_RATIO
                    and ratio(a_content.n_tokens, b_content.n_tokens) >= _MIN_RATIO):
                images = image_jaccard(ev.critical_images(c.url1), ev.critical_images(c.url2))
            # A fingerprint of one or two paragraphs (a title, a heading) matches any other.
            if min(fa.paragraphs, fb.paragraphs) >= _MIN_FP_PARAGRAPHS:
                fp = shape_distance_ratio(fa, fb)
            scores["link"], scores["url_key"] = round(link, 6), round(url_key, 6)
            if images is not None:
                scores["images"] = round(images, 6)
            if fp is not None:
                scores["fingerprint_ratio"] = round(fp, 6)
        slug = slug_score(c.url1, c.url2, translator(c.lang1, c.lang2, model), url_words)
        if slug is not None:
            scores["slug"] = round(slug, 6)
        dup = near.get(c.url1) or near.get(c.url2) or ""
        if pivot is not None:
            scores["pivot"] = round(pivot.support, 6)
            scores["pivots"] = list(pivot.pivots)
        elif "pivot" in scores:  # proposed so by an earlier run; this run's pairs no longer do
            scores["pivot"], scores["pivots"] = 0.0, []
        evidence = Evidence(
            structure=sim, structure_failed=failed, content_share=share,
            maturity=maturity(model, cfg.content_mature_sentences), url_key=url_key, link=link,
            images=images, fingerprint_ratio=fp, pivot=None if pivot is None else pivot.support, slug=slug,
            bag_mutual=_number(scores.get("bag_mutual")), dictionary=_number(scores.get("dictionary")),
            same_language=c.lang1 == c.lang2,
            same_text=a_content is not None and b_content is not None and a_content.text_key == b_content.text_key,
            alias_of=aliases.get(c.url1) or aliases.get(c.url2) or "",
            near_duplicate=dup, too_little_content=too_little and not (link and link >= _EXPLICIT_LINK),
            user=user_scores(scores),
        )
        d = decide(evidence, cfg.content_required)
        if d.accepted and m is not None and keep_match is not None:
            keep_match(model, m)
        scores["decision"] = {"score": d.score, "accepted": d.accepted, "terms": d.terms, "veto": d.veto,
                              "evidence": {k: v for k, v in vars(evidence).items() if v not in (None, {}, "")}}
        decided.append((c.id, c.url1, c.lang1, c.url2, c.lang2, d.score, scores, d.accepted))
        if d.accepted:
            score_of[(c.url1, c.url2)] = d.score
        if save is not None and len(decided) >= save_every:
            save(decided)
            decided.clear()
        counts["accepted" if d.accepted else "rejected"] += 1
        if pivot is not None:
            counts["pivot_proposed"] += 1
            counts["pivot_accepted"] += d.accepted
        elif is_new:
            counts["proposed"] += 1
            counts["proposed_accepted"] += d.accepted
        return d.accepted

    accepted = [c for i, c in enumerate(everything) if judge(i, c)]
    # Pairs through a third language, for the slots a one-to-one resolution of the accepted
    # candidates leaves empty.
    page_ids: dict[str, int] = {}
    provisional = resolve_one_to_one(
        Scored(page_ids.setdefault(c.url1, len(page_ids)), c.lang1, page_ids.setdefault(c.url2, len(page_ids)),
               c.lang2, score_of[(c.url1, c.url2)]) for c in accepted)
    url_of = {i: u for u, i in page_ids.items()}
    for prop in pivot_proposals((url_of[p.page1], p.lang1, url_of[p.page2], p.lang2) for p in provisional):
        pair = _unordered(prop.url1, prop.url2)
        if pair in known:
            continue
        stored = by_pivot.pop(pair, None)
        if stored is not None:
            judge(-1, stored, prop)
            continue
        wa, wb = index.locate(prop.url1), index.locate(prop.url2)
        if wa is None or wb is None:
            continue
        judge(-1, ProposedPair(prop.url1, wa[0], prop.url2, wb[0], scores={"proposed": 1}), prop)
    for stored in by_pivot.values():
        judge(-1, stored)
    if save is not None and decided:
        save(decided)
        decided.clear()
    return SiteDecisions(decided, counts, len(thresholds))
