"""What is known of two pages as a pair, read back from the crawl database: both pages, the
candidate's evidence, its stored decision (matchers/site/site_decision.py writes it under
``scores["decision"]``) and whether it became a final pair or which pairs beat it.

``bitext explain`` prints it; the viewer's pair page shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from bitext_spider.store.models import CandidateRow, PageRow, PairRow

# Evidence shown first, in this order, when present.
EVIDENCE_ORDER = ("structure", "content_share", "content_mean", "url_key", "link", "images", "fingerprint_ratio",
                  "edit_distance", "structure_threshold", "chunk_correlation", "p_d", "l_d", "l_d_threshold")


@dataclass
class PageFacts:
    url: str
    id: int
    lang: str
    n_words: int
    eligible: bool
    note: str
    topic: dict[str, Any] | None


@dataclass
class Explanation:
    urls: tuple[str, str]
    pages: dict[str, PageFacts]  # the stored ones among ``urls``
    candidate: bool = False
    evidence: list[tuple[str, Any]] = field(default_factory=list)
    decision: dict[str, Any] | None = None  # terms, score, veto, accepted
    final: bool = False
    accepted: bool = False
    partners: list[str] = field(default_factory=list)  # "URL is paired with URL" for a lost pair


def explain_pair(s: Session, url1: str, url2: str) -> Explanation:
    rows = {r.url: r for r in s.execute(select(PageRow).where(PageRow.url.in_([url1, url2]))).scalars()}
    pages = {u: PageFacts(r.url, r.id, r.lang or "und", r.n_words, r.eligible, r.note, r.topic)
             for u, r in rows.items()}
    out = Explanation((url1, url2), pages)
    if len(pages) < 2:
        return out
    a, b = pages[url1].id, pages[url2].id
    lo, hi = min(a, b), max(a, b)
    cand = s.execute(
        select(CandidateRow).where(CandidateRow.page1_id == lo, CandidateRow.page2_id == hi)
    ).scalar_one_or_none()
    if cand is None:
        return out
    out.candidate = True
    out.final = s.execute(
        select(PairRow.id).where(PairRow.page1_id == lo, PairRow.page2_id == hi)
    ).scalar_one_or_none() is not None
    out.accepted = bool(cand.accepted)
    if not out.final and out.accepted:
        out.partners = _partners(s, rows[url1], rows[url2])
    scores = dict(cand.scores or {})
    out.decision = scores.pop("decision", None) or None
    out.evidence = [(k, scores[k]) for k in [k for k in EVIDENCE_ORDER if k in scores]
                    + sorted(k for k in scores if k not in EVIDENCE_ORDER)]
    return out


def _partners(s: Session, page_a: PageRow, page_b: PageRow) -> list[str]:
    """The final partners, in each other's language, that the two pages have instead."""
    p1, p2 = aliased(PageRow), aliased(PageRow)
    out = []
    for page, other_lang in ((page_a, page_b.lang), (page_b, page_a.lang)):
        q = (
            select(p1.url, p2.url)
            .select_from(PairRow)
            .join(p1, p1.id == PairRow.page1_id)
            .join(p2, p2.id == PairRow.page2_id)
            .where(((PairRow.page1_id == page.id) & (PairRow.lang2 == other_lang))
                   | ((PairRow.page2_id == page.id) & (PairRow.lang1 == other_lang)))
        )
        for u1, u2 in s.execute(q):
            out.append(f"{page.url} is paired with {u2 if u1 == page.url else u1}")
    return out
