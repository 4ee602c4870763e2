"""The deciding evidence of a candidate: the one term of its stored decision that settled it.

The decision (matchers.site.decision) is a sum of terms, stored with the candidate under
``scores["decision"]``.  Filtering tens of thousands of candidates on that JSON is slow, so the
name of the term that settled the verdict is also kept in the indexed column
``candidates.deciding``, written with the decision and back-filled by migration 0006:

* ``"veto"`` when a veto held, whatever the score;
* for an accepted candidate, its largest term;
* for a rejected one, its most negative term when the positive terms alone would have accepted
  it (a trained model contradicting the rest), else its largest term;
* ``"none"`` when no term counted; NULL when no decision is stored.
"""

from __future__ import annotations

from typing import Any

from matchers.site.decision import ACCEPT

VETO = "veto"
NONE = "none"


def deciding_evidence(scores: dict[str, Any] | None) -> str | None:
    decision = (scores or {}).get("decision")
    if not isinstance(decision, dict):
        return None
    if decision.get("veto"):
        return VETO
    terms = {k: float(v) for k, v in (decision.get("terms") or {}).items()
             if isinstance(v, int | float) and v == v}
    positive = {k: v for k, v in terms.items() if v > 0}
    negative = {k: v for k, v in terms.items() if v < 0}
    if not decision.get("accepted") and negative and sum(positive.values()) >= ACCEPT:
        return min(negative, key=lambda k: (negative[k], k))[:32]
    if not positive:
        return NONE
    return max(positive, key=lambda k: (positive[k], k))[:32]
