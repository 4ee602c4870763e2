"""``bitext explain URL1 URL2`` and ``bitext export keys``: read the decision and the URL pairing
keys back from the crawl database.

The decision of every candidate (matchers/site/site_decision.py) is stored with it under
``scores["decision"]``: the evidence, each term's contribution, the veto if any, the score and the
verdict (read by bitext_spider.store.explanation).  URL keys are recomputed from the stored pages'
URLs and languages exactly as the crawl computes them at close (matchers.site.url_keys).
"""

from __future__ import annotations

from typing import IO, Any

from sqlalchemy.orm import Session

from bitext_spider.store.database import Store
from bitext_spider.store.explanation import explain_pair
from matchers.site.decision import ACCEPT


def explain(store: Store, url1: str, url2: str, out: IO[str]) -> int:
    """Print what is known of the pair; 0 when it is a candidate, 1 otherwise."""
    with Session(store.engine) as s:
        ex = explain_pair(s, url1, url2)
    for url in (url1, url2):
        page = ex.pages.get(url)
        if page is None:
            out.write(f"{url}: not a stored page\n")
        else:
            why = "" if page.eligible else f" (not paired: {page.note or 'language not of interest'})"
            out.write(f"{url}: {page.lang}, {page.n_words} words{why}\n")
            if page.topic:
                out.write(_topic_line(page.topic))
    if len(ex.pages) < 2:
        return 1
    if not ex.candidate:
        out.write("not a candidate: no filter, URL key or link proposed this pair\n")
        return 1
    out.write("evidence:\n")
    for key, value in ex.evidence:
        out.write(f"  {key}: {value}\n")
    decision = ex.decision
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
    if ex.final:
        out.write("final pair: yes\n")
    elif ex.accepted:
        out.write(f"final pair: no, lost the one-to-one resolution ({'; '.join(ex.partners) or 'to a better pair'})\n")
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
