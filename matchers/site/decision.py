"""One decision per candidate pair from every piece of evidence, with the reasons kept.

Each paper brings one kind of evidence and none is reliable alone: structure (Tomás et al.,
*WebMining* 2.2; Jangeldin & Assylbekov's unsupervised thresholds), content (WebMining 2.3, PCB),
URL pairing keys (Kit & Ng), links (hreflang, language switchers), images, paragraph fingerprints
and near-duplicates (*ILSP-FC* 3.8-3.9).  Here they are combined into one score, a weighted sum
of terms in [0, 1], minus penalties for contradicting evidence; absent evidence adds nothing:

    score = 0.50 S + 0.50 C + 0.40 U + 0.50 L + 0.20 I + 0.20 F + 0.60 V + 0.20 T + 0.20 B + 0.20 D
            + X - 1.0 N

* ``S`` structure similarity when the pair passes the structure threshold, else 0;
* ``C`` content share (aligned sentence pairs above the probability threshold) times the
  language-pair model's maturity, so an untrained model counts for little (WebMining 2.3);
* ``U`` URL pairing key score; ``L`` link evidence (hreflang 1, language switcher 0.8, mutual
  links 0.4); ``I`` Jaccard similarity of the pages' critical images (for pages at neighbouring
  depths with similar paragraph counts and lengths, ILSP-FC 3.9); ``F`` 1 minus the
  fingerprint edit-distance ratio;
* ``T`` translated URL slugs: the share of the words the two URLs' paths do not share whose
  translation is in the other URL (matchers/site/slug_translation.py);
* ``V`` pivot support of a pair proposed through a third language (matchers/site/pivot_pairs.py):
  k / (k + 1) for k pages that pair with both, so one pivot (0.30) needs some other evidence and
  two (0.40) are enough on their own;
* ``B`` 1 when a pair found on content alone is a mutual best of the translated bags of words
  (Buck & Koehn's one-to-one TF/IDF cosine; matchers/content/content_candidates.py), times the
  model's maturity (among the few pages of a rare language pair any best is mutual) unless the
  dictionary passes the pair too; ``D`` 1 when
  both of PCB's dictionary scores pass their thresholds (matchers/content/dictionary_judge.py).
  Either one only adds to content: a trained model's share of 0.40 with a mutual best is enough,
  and both together are (PCB's own rule plus Buck & Koehn's one-to-one) unless a trained model
  contradicts them;
* ``X`` user evidence: every score a user's pipeline adds under ``x_<name>`` (docs/custom_filter.md)
  counts with its value (clipped to [-1, 1]);
* ``N`` contradiction: a trained model aligns (almost) nothing (share < 0.10).

A candidate is accepted when ``score >= ACCEPT`` (0.40), and never when a veto holds: the two pages are
in one language, their main texts are the same but for case, digits, URLs and punctuation
(Bicleaner's hard rules, matchers/content/hard_rules.py), one of them is a copy whose
rel=canonical names another page of its language (a print version), one of them is a
near-duplicate of another page of its language (ILSP-FC 3.8), or content is required and one page has too little main content to judge.  The weights make
every single strong piece (structure, a trained model's content, a URL key, an hreflang or
switcher link) enough on its own unless content contradicts it, and the weak ones (mutual links,
images, fingerprints, translated slugs) count only together with something else; docs/design.md gives the
measurements behind them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

ACCEPT = 0.40
WEIGHTS = {"structure": 0.50, "content": 0.50, "url_key": 0.40, "link": 0.50, "images": 0.20,
           "fingerprint": 0.20, "pivot": 0.60, "slug": 0.20, "bag": 0.20, "dictionary": 0.20}
CONTRADICTION = 1.0
CONTRADICTING_SHARE = 0.10
USER_PREFIX = "x_"


@dataclass
class Evidence:
    """What is known about one candidate pair; None means "no evidence either way"."""

    structure: float | None = None  # similarity, when the pair passes the structure threshold
    structure_failed: bool = False
    content_share: float | None = None
    maturity: float = 0.0  # 0..1, of the language pair's translation model
    url_key: float | None = None
    link: float | None = None
    images: float | None = None
    fingerprint_ratio: float | None = None
    pivot: float | None = None
    slug: float | None = None
    bag_mutual: float | None = None  # 1: each page is the other's closest translated bag of words
    dictionary: float | None = None  # 1: both PCB dictionary scores pass their thresholds
    same_language: bool = False
    near_duplicate: str = ""  # the page this pair's page duplicates, if any
    too_little_content: bool = False
    # Bicleaner's identity rules over the two main texts (matchers.content.hard_rules).
    same_text: bool = False
    alias_of: str = ""  # one page is a copy (rel=canonical) of this page of its language
    user: dict[str, float] = field(default_factory=dict)


@dataclass
class Decision:
    score: float
    accepted: bool
    terms: dict[str, float]  # each piece's contribution to the score
    veto: str = ""


def _finite(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def decide(ev: Evidence, content_required: bool = True) -> Decision:
    terms: dict[str, float] = {}
    s = _finite(ev.structure)
    if s is not None and not ev.structure_failed:
        terms["structure"] = WEIGHTS["structure"] * s
    c = _finite(ev.content_share)
    if c is not None:
        terms["content"] = WEIGHTS["content"] * c * ev.maturity
        if ev.maturity >= 1.0 and c < CONTRADICTING_SHARE:
            terms["contradiction"] = -CONTRADICTION
    b = _finite(ev.bag_mutual)
    if b:
        # The best of a handful of pages is easily mutual: it counts as the model matures, or
        # when the dictionary vouches for the pair too.
        terms["bag"] = WEIGHTS["bag"] * b * max(ev.maturity, _finite(ev.dictionary) or 0.0)
    for name, value in (("url_key", ev.url_key), ("link", ev.link), ("images", ev.images), ("pivot", ev.pivot),
                        ("slug", ev.slug), ("dictionary", ev.dictionary)):
        v = _finite(value)
        if v:
            terms[name] = WEIGHTS[name] * v
    f = _finite(ev.fingerprint_ratio)
    if f is not None:
        terms["fingerprint"] = WEIGHTS["fingerprint"] * max(0.0, 1.0 - f)
    for name, value in ev.user.items():
        v = _finite(value)
        if v is not None:
            terms[name] = max(-1.0, min(1.0, v))
    score = round(sum(terms.values()), 6)
    veto = ""
    if ev.same_language:
        veto = "same language"
    elif ev.same_text:
        veto = "same text in both languages"
    elif ev.alias_of:
        veto = f"copy of {ev.alias_of} (rel=canonical)"
    elif ev.near_duplicate:
        veto = f"near-duplicate of {ev.near_duplicate}"
    elif content_required and ev.too_little_content:
        veto = "too little main content to judge"
    return Decision(score, not veto and score >= ACCEPT, terms, veto)


def user_scores(scores: Mapping[str, object]) -> dict[str, float]:
    """The ``x_*`` scores a user's pipeline stored with a candidate."""
    out = {}
    for k, v in scores.items():
        if k.startswith(USER_PREFIX) and isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = float(v)
    return out
