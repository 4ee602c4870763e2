"""``bitext explain URL1 URL2`` and ``bitext export keys``: read the decision and the URL pairing
keys back from the crawl database.

The decision of every candidate (matchers/site/site_decision.py) is stored with it under
``scores["decision"]``: the evidence, each term's contribution, the veto if any, the score and the
verdict.  URL keys are recomputed from the stored pages' URLs and languages exactly as the crawl
computes them at close (matchers.site.url_keys).
"""

from __future__ import annotations

from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from bitext_spider.store.database import Store
from bitext_spider.store.models import CandidateRow, PageRow, PairRow
from matchers.site.decision import ACCEPT

# Evidence printed first, in this order, when present.
_ORDER = ("structure", "content_share", "content_mean", "url_key", "link", "images", "fingerprint_ratio",
          "edit_distance", "structure_threshold", "chunk_correlation", "p_d", "l_d", "l_d_threshold")


def explain(store: Store, url1: str, url2: str, out: IO[str]) -> int:
    """Print what is known of the pair; 0 when it is a candidate, 1 otherwise."""
    p1, p2 = aliased(PageRow), aliased(PageRow)
    with Session(store.engine) as s:
        pages = {r.url: r for r in s.execute(select(PageRow).where(PageRow.url.in_([url1, url2]))).scalars()}
        for url in (url1, url2):
            page = pages.get(url)
            if page is None:
                out.write(f"{url}: not a stored page\n")
            else:
                why = "" if page.eligible else f" (not paired: {page.note or 'language not of interest'})"
                out.write(f"{url}: {page.lang or 'und'}, {page.n_words} words{why}\n")
                if page.topic:
                    out.write(_topic_line(page.topic))
        if len(pages) < 2:
            return 1
        a, b = pages[url1].id, pages[url2].id
        lo, hi = min(a, b), max(a, b)
        cand = s.execute(
            select(CandidateRow).where(CandidateRow.page1_id == lo, CandidateRow.page2_id == hi)
        ).scalar_one_or_none()
        if cand is None:
            out.write("not a candidate: no filter, URL key or link proposed this pair\n")
            return 1
        final = s.execute(
            select(PairRow.id).where(PairRow.page1_id == lo, PairRow.page2_id == hi)
        ).scalar_one_or_none()
        partners = _partners(s, p1, p2, pages[url1], pages[url2])
    scores = dict(cand.scores or {})
    decision = scores.pop("decision", None)
    out.write("evidence:\n")
    for key in [k for k in _ORDER if k in scores] + sorted(k for k in scores if k not in _ORDER):
        out.write(f"  {key}: {scores[key]}\n")
    if decision:
        out.write("decision:\n")
        for term, value in decision.get("terms", {}).items():
            out.write(f"  {term:<14} {value:+.3f}\n")
        out.write(f"  score {decision['score']:.3f} (accept at {ACCEPT})")
        veto = decision.get("veto")
        out.write(f"; veto: {veto}\n" if veto else "\n")
        out.write(f"  {'accepted' if decision['accepted'] else 'rejected'}\n")
    else:
        out.write("decision: none stored (a crawl with BITEXT_ENABLED or the decision stage off)\n")
    if final:
        out.write("final pair: yes\n")
    elif cand.accepted:
        out.write(f"final pair: no, lost the one-to-one resolution ({'; '.join(partners) or 'to a better pair'})\n")
    else:
        out.write("final pair: no\n")
    return 0


def _topic_line(topic: dict[str, Any]) -> str:
    """A focused crawl's relevance of a page (matchers.page.topic_relevance), on one line."""
    terms = sorted((topic.get("terms") or {}).items(), key=lambda kv: -kv[1])
    shown = ", ".join(f"{t} x{n}" for t, n in terms[:8]) + (", ..." if len(terms) > 8 else "")
    verdict = "relevant" if topic.get("relevant") else "not relevant"
    return (f"  domain {topic.get('domain') or '?'}: {verdict}, p {topic.get('p', 0):g}, m {topic.get('m', 0)}"
            f"{'; terms: ' + shown if shown else ''}\n")


def _partners(s: Session, p1: Any, p2: Any, page_a: PageRow, page_b: PageRow) -> list[str]:
    """The final partners, in each other's language, that the two pages have instead."""
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
