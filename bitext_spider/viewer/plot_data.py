"""The numbers behind the viewer's plots, read from a crawl database and recomputed, where the
crawl computed them at close, with the matchers' own functions (bitext_spider.viewer.plots draws
them).

Nothing here is stored by the plots: every figure is what the stored rows say now.  Where the
database does not keep what a plot shows (a pair's time of discovery, the young translation
model's judgement of a page pair), the closest stored quantity is used and the plot's caption
says which.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from bitext_spider.store.models import CandidateRow, PageRow, PairRow, SentenceRow, SiteRow
from matchers.site.image_evidence import ImageFrequencies, gaussian_kde, normal_reference_bandwidth
from matchers.structure.unsupervised_threshold import (
    STRAND_MAX_P_D,
    PairFeatures,
    ThresholdResult,
    enough_candidates,
    estimate_threshold,
    shape,
    shape_features,
)

# The evidence the site decision weighs (matchers/site/decision.py), as candidates.scores names
# it, with the label a reader sees; x_<name> scores of a user's filters are added after them.
EVIDENCE: tuple[tuple[str, str], ...] = (
    ("structure", "structure similarity"),
    ("p_d", "P_d (unsupervised structure)"),
    ("content_share", "content share"),
    ("url_key", "URL key"),
    ("link", "link"),
    ("images", "images (critical Jaccard)"),
    ("fingerprint_ratio", "fingerprint ratio"),
    ("slug", "translated slug"),
    ("pivot", "pivot support"),
    ("bag", "bag of words (TF/IDF)"),
    ("dictionary", "dictionary (PCB)"),
)
USER_PREFIX = "x_"
# SQLite's default limit of bound parameters per statement is 999 in older builds.
_IN_CHUNK = 900


class Candidate(NamedTuple):
    site_id: int
    page1: int
    page2: int
    lang1: str
    lang2: str
    scores: dict[str, Any]
    accepted: bool


class Page(NamedTuple):
    id: int
    site_id: int
    fetched_at: float
    lang: str | None
    eligible: bool
    images: list[str]


def _number(value: object) -> float | None:
    """A finite number of a JSON score (booleans, NaN, lists and dicts are not evidence values)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def site_keys(session: Session, site_id: int | None) -> dict[int, str]:
    q = select(SiteRow.id, SiteRow.key)
    if site_id is not None:
        q = q.where(SiteRow.id == site_id)
    return {i: k for i, k in session.execute(q)}


def load_candidates(session: Session, site_id: int | None) -> list[Candidate]:
    q = select(CandidateRow.site_id, CandidateRow.page1_id, CandidateRow.page2_id, CandidateRow.lang1,
               CandidateRow.lang2, CandidateRow.scores, CandidateRow.accepted)
    if site_id is not None:
        q = q.where(CandidateRow.site_id == site_id)
    return [Candidate(s, p1, p2, l1, l2, scores or {}, bool(acc))
            for s, p1, p2, l1, l2, scores, acc in session.execute(q.order_by(CandidateRow.id))]


def load_pages(session: Session, site_id: int | None) -> list[Page]:
    """The site's pages in crawl order (fetch time, then id: the order they were stored in)."""
    q = select(PageRow.id, PageRow.site_id, PageRow.fetched_at, PageRow.lang, PageRow.eligible, PageRow.images)
    if site_id is not None:
        q = q.where(PageRow.site_id == site_id)
    return [Page(i, s, float(t or 0.0), lang, bool(el), list(imgs or []))
            for i, s, t, lang, el, imgs in session.execute(q.order_by(PageRow.fetched_at, PageRow.id))]


def load_tokens(session: Session, ids: Iterable[int]) -> dict[int, np.ndarray]:
    """The stored STRAND tag sequences (int32, matchers.page.linearize codes) of these pages."""
    wanted = sorted(set(ids))
    out: dict[int, np.ndarray] = {}
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start:start + _IN_CHUNK]
        q = select(PageRow.id, PageRow.tokens).where(PageRow.id.in_(chunk), PageRow.tokens.is_not(None))
        for i, blob in session.execute(q):
            out[i] = np.frombuffer(blob, dtype=np.int32)
    return out


# -- 1. score distributions -----------------------------------------------------------------------
@dataclass(frozen=True)
class ScoreSample:
    name: str
    label: str
    accepted: np.ndarray
    rejected: np.ndarray


def score_samples(candidates: Sequence[Candidate]) -> list[ScoreSample]:
    """Per evidence present in any candidate, its values on accepted and on rejected candidates."""
    values: dict[str, tuple[list[float], list[float]]] = {}
    for c in candidates:
        for name, raw in c.scores.items():
            v = _number(raw)
            if v is not None:
                values.setdefault(name, ([], []))[0 if c.accepted else 1].append(v)
    names = list(EVIDENCE) + sorted((n, n) for n in values if n.startswith(USER_PREFIX))
    return [ScoreSample(name, label, np.array(values[name][0]), np.array(values[name][1]))
            for name, label in names if name in values]


# -- 2. the unsupervised structure threshold ------------------------------------------------------
@dataclass(frozen=True)
class StructureSample:
    site: str
    lang1: str  # L_d is (L1 - L2) / (L1 + L2) with this language first
    lang2: str
    features: tuple[PairFeatures, ...]
    result: ThresholdResult | None  # None: no pair with P_d = 0, so mu is undefined
    used: bool  # the crawl replaced its fixed threshold with this one (scores carry l_d_threshold)
    stored_threshold: float | None  # l_d_threshold as the crawl stored it
    enough: bool  # enough_candidates() with the settings given

    @property
    def s(self) -> np.ndarray:
        """L_d of S, the pairs with P_d < 0.2 that Algorithm 1 counts."""
        return np.array([f.l_d for f in self.features if f.p_d < STRAND_MAX_P_D])

    @property
    def d(self) -> np.ndarray:
        """L_d of D, the pairs with P_d = 0 that mu is the mean of."""
        return np.array([f.l_d for f in self.features if f.p_d == 0.0])


def structure_samples(
    session: Session, candidates: Sequence[Candidate], keys: dict[int, str], min_pairs: int, step: float,
    delta: float, limit: int = 4,
) -> list[StructureSample]:
    """Algorithm 1 (Jangeldin & Assylbekov) on the ``limit`` site/language pairs with most candidates.

    The sample is the one the site decision builds at close (matchers.site.site_decision): the
    candidates of two different languages, pairs proposed through a third language left out.
    Where the crawl estimated a threshold it stored each pair's P_d and L_d, which are used as
    they are; otherwise the features are recomputed from the pages' stored tag sequences with the
    same functions (shape, shape_features), and the threshold is what Algorithm 1 would give.
    """
    groups: dict[tuple[int, str, str], list[Candidate]] = {}
    for c in candidates:
        if c.lang1 == c.lang2 or "pivot" in c.scores:
            continue
        l1, l2 = sorted((c.lang1, c.lang2))
        groups.setdefault((c.site_id, l1, l2), []).append(c)
    chosen = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]
    need = {p for key, members in chosen if not _stored_features(members)
            for c in members for p in (c.page1, c.page2)}
    tokens = load_tokens(session, need) if need else {}
    out = []
    for (site, l1, l2), members in chosen:
        stored = _stored_features(members)
        feats = stored if stored else _recomputed(members, l1, tokens)
        if not feats:
            continue
        thresholds = [_number(c.scores.get("l_d_threshold")) for c in members]
        stored_t = next((t for t in thresholds if t is not None), None)
        try:
            result: ThresholdResult | None = estimate_threshold(feats, step, delta)
        except ValueError:
            result = None
        out.append(StructureSample(keys.get(site, str(site)), l1, l2, tuple(feats), result,
                                   stored_t is not None, stored_t, enough_candidates(feats, min_pairs)))
    return out


def _stored_features(members: Sequence[Candidate]) -> list[PairFeatures]:
    out = []
    for c in members:
        p_d, l_d = _number(c.scores.get("p_d")), _number(c.scores.get("l_d"))
        if p_d is not None and l_d is not None:
            out.append(PairFeatures(p_d, l_d))
    return out


def _recomputed(members: Sequence[Candidate], first_lang: str, tokens: dict[int, np.ndarray]) -> list[PairFeatures]:
    out = []
    for c in members:
        a, b = (c.page1, c.page2) if c.lang1 == first_lang else (c.page2, c.page1)
        if a not in tokens or b not in tokens:
            continue
        try:
            out.append(shape_features(shape(tokens[a]), shape(tokens[b])))
        except ValueError:  # a page without tags or text: the decision leaves it out too
            continue
    return out


# -- 3. image frequencies -------------------------------------------------------------------------
@dataclass(frozen=True)
class ImageSample:
    site: str
    pages: int  # pages counted (eligible, with a language), the 10% rule's denominator
    frequencies: np.ndarray  # per distinct image: the most pages of one language that use it
    threshold: float | None  # kde_threshold (None: no KDE cut)
    bandwidth: float
    over_share: int  # images on more than 10% of the pages: common whatever their frequency

    def density(self, points: int = 1500) -> tuple[np.ndarray, np.ndarray]:
        """The KDE the threshold was read from, on at most ``points`` grid points of its range."""
        lo, hi = float(self.frequencies.min()), float(self.frequencies.max())
        n = max(3, min(points, int(math.ceil((hi - lo) * 8 / self.bandwidth)) + 1))
        grid = np.linspace(lo, hi, n)
        return grid, gaussian_kde(self.frequencies, grid, self.bandwidth)


def image_samples(pages: Sequence[Page], keys: dict[int, str], limit: int = 4) -> list[ImageSample]:
    """The image frequencies of each site (at most ``limit``, most distinct images first), counted
    as the crawl counts them (matchers.site.image_evidence.ImageFrequencies): the eligible pages
    with a language, each page's distinct image names once."""
    by_site: dict[int, tuple[ImageFrequencies, dict[str, None]]] = {}
    for p in pages:
        if not (p.eligible and p.lang):
            continue
        freq, names = by_site.setdefault(p.site_id, (ImageFrequencies(), {}))
        freq.add(p.images, p.lang)
        names.update(dict.fromkeys(p.images))
    out = []
    for site, (freq, names) in by_site.items():
        if not names:
            continue
        x = np.array([freq.frequency(n) for n in names], dtype=np.float64)
        over = sum(1 for n in names if freq.count(n) > freq.max_share * freq.pages)
        out.append(ImageSample(keys.get(site, str(site)), freq.pages, x, freq.threshold,
                               normal_reference_bandwidth(x), over))
    out.sort(key=lambda s: (-s.frequencies.size, s.site))
    return out[:limit]


# -- 4. the translation model's learning curve ----------------------------------------------------
@dataclass(frozen=True)
class LearningCurve:
    lang1: str
    lang2: str
    seen: np.ndarray  # cumulative sentence pairs, one value per page pair in crawl order
    rolling: np.ndarray  # share of aligned sentence pairs over the last ``window`` of them
    pair_share: np.ndarray  # each page pair's stored content_share (NaN when it has none)
    aligned: int  # sentence pairs above the threshold, in all

    @property
    def total(self) -> int:
        return int(self.seen[-1]) if self.seen.size else 0


def learning_curves(
    session: Session, site_id: int | None, pages: Sequence[Page], candidates: Sequence[Candidate],
    threshold: float, window: int = 250, limit: int = 5,
) -> list[LearningCurve]:
    """Per language pair (the ``limit`` with most sentence pairs), the stored sentence pairs of its
    page pairs in crawl order: a page pair counts from its later page's fetch time."""
    good = func.sum(case((SentenceRow.score > threshold, 1), else_=0))
    q = select(SentenceRow.page1_id, SentenceRow.page2_id, SentenceRow.lang1, SentenceRow.lang2,
               func.count(), good).group_by(SentenceRow.page1_id, SentenceRow.page2_id, SentenceRow.lang1,
                                            SentenceRow.lang2)
    if site_id is not None:
        q = q.where(SentenceRow.site_id == site_id)
    fetched = {p.id: p.fetched_at for p in pages}
    shares = {(c.page1, c.page2): _number(c.scores.get("content_share")) for c in candidates}
    by_langs: dict[tuple[str, str], list[tuple[float, int, int, int, float]]] = {}
    for p1, p2, l1, l2, n, g in session.execute(q):
        if p1 not in fetched or p2 not in fetched:
            continue
        share = shares.get((p1, p2))
        row = (max(fetched[p1], fetched[p2]), max(p1, p2), int(n), int(g or 0), math.nan if share is None else share)
        by_langs.setdefault(tuple(sorted((l1, l2))), []).append(row)  # type: ignore[arg-type]
    ranked = sorted(by_langs.items(), key=lambda kv: (-sum(r[2] for r in kv[1]), kv[0]))[:limit]
    out = []
    for (l1, l2), rows in ranked:
        rows.sort()
        n = np.array([r[2] for r in rows], dtype=np.int64)
        g = np.array([r[3] for r in rows], dtype=np.int64)
        out.append(LearningCurve(l1, l2, np.cumsum(n), rolling_share(n, g, window),
                                 np.array([r[4] for r in rows]), int(g.sum())))
    return out


def rolling_share(n: np.ndarray, good: np.ndarray, window: int) -> np.ndarray:
    """For each page pair, ``good / n`` over it and the page pairs before it that make up the last
    ``window`` sentence pairs (whole page pairs: the window ends at the first that reaches it)."""
    seen = np.concatenate(([0], np.cumsum(n)))
    hits = np.concatenate(([0], np.cumsum(good)))
    ends = np.arange(1, seen.size)
    starts = np.searchsorted(seen, seen[ends] - window, side="right") - 1
    starts = np.clip(starts, 0, None)
    total = seen[ends] - seen[starts]
    return np.divide(hits[ends] - hits[starts], total, out=np.zeros(total.size), where=total > 0)


# -- 5. pairs found as pages arrive ---------------------------------------------------------------
@dataclass(frozen=True)
class PairGrowth:
    pages: int
    pairs_at: np.ndarray  # pairs_at[i]: final pairs whose pages are both among the first i + 1
    accepted_at: np.ndarray  # the same for accepted candidates

    @property
    def pairs(self) -> int:
        return int(self.pairs_at[-1]) if self.pairs_at.size else 0


def pair_growth(session: Session, site_id: int | None, pages: Sequence[Page],
                candidates: Sequence[Candidate]) -> PairGrowth:
    """Final pairs (and accepted candidates) against pages stored, in fetch order."""
    rank = {p.id: i for i, p in enumerate(pages)}
    q = select(PairRow.page1_id, PairRow.page2_id)
    if site_id is not None:
        q = q.where(PairRow.site_id == site_id)
    pairs = [(a, b) for a, b in session.execute(q)]
    accepted = [(c.page1, c.page2) for c in candidates if c.accepted]
    return PairGrowth(len(pages), _arrivals(pairs, rank), _arrivals(accepted, rank))


def _arrivals(pairs: Iterable[tuple[int, int]], rank: dict[int, int]) -> np.ndarray:
    """Cumulative count of pairs by the crawl position of their later page."""
    later = [max(rank[a], rank[b]) for a, b in pairs if a in rank and b in rank]
    return np.cumsum(np.bincount(np.array(later, dtype=np.int64), minlength=len(rank)))
