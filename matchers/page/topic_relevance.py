"""Page relevance to a domain: the score p over term occurrences by location, and m, the number of
unique domain terms in the main content.

Papavassiliou et al., *ILSP-FC* (section 3.5, Text Classifier)::

    p = sum_i sum_j n_ij * w_i^t * w_j^l

over the N terms of the domain definition (matchers.page.domain_terms) and the four locations of
a page, *title*, *metadata*, *keywords* and plain *text*, with location weights 10, 4, 2 and 1;
``n_ij`` is the number of occurrences of term i in location j and ``w_i^t`` its weight.  "The
amount of unique domain terms found in the main content of the page, m, is calculated.  Then, the
values p and m are compared with two predefined thresholds (t1 and t2)" and the page is relevant
when both pass (here: reach them; ``BITEXT_TOPIC_MIN_SCORE``, ``BITEXT_TOPIC_MIN_TERMS``).

Locations as read here: *title* is the ``<title>``; *metadata* the descriptive ``<meta>`` fields
(``description``, Dublin Core and Open Graph descriptions and titles); *keywords* the ``keywords``
``<meta>`` fields (``keywords``, ``news_keywords``, ``dc.subject``, ``article:tag``); *text* the
page's main content (jusText's paragraphs less boilerplate, matchers.page.main_content), the same
text m is counted on: the menus and footers a site repeats on every page would otherwise make every
page of a site that mentions its subject in its menu look relevant.  Relevance is computed from the
page alone, so it is known when the page's links are queued and does not depend on the order in
which a site's pages arrive.

:func:`paragraph_terms` gives each paragraph's domain terms, ILSP-FC's ``topic`` attribute of the
exported ``<p>`` (section 3.7).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from matchers.page.domain_terms import Domain

LOCATION_WEIGHTS: dict[str, int] = {"title": 10, "metadata": 4, "keywords": 2, "text": 1}

_METADATA = frozenset({
    "description", "dc.description", "dcterms.description", "og:description", "twitter:description",
    "dc.title", "dcterms.title", "og:title", "twitter:title", "abstract", "subject",
})
_KEYWORDS = frozenset({"keywords", "news_keywords", "dc.subject", "dcterms.subject", "article:tag"})


@dataclass(frozen=True)
class PageLocations:
    """The text of a page in each of the four locations."""

    title: str = ""
    metadata: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    text: tuple[str, ...] = ()  # main-content paragraphs


@dataclass(frozen=True)
class TopicScore:
    """A page's relevance: p, m, the verdict, and the terms found (term -> occurrences in every
    location) with their subdomains."""

    p: float
    m: int
    relevant: bool
    terms: dict[str, int] = field(default_factory=dict)
    subdomains: tuple[str, ...] = ()
    domain: str = ""  # the domain's name (its file's name)

    def as_json(self) -> dict[str, Any]:
        """What the store keeps (``pages.topic``)."""
        return {"domain": self.domain, "p": round(self.p, 3), "m": self.m, "relevant": self.relevant,
                "terms": dict(self.terms), "subdomains": list(self.subdomains)}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> TopicScore:
        return cls(float(value.get("p", 0.0)), int(value.get("m", 0)), bool(value.get("relevant")),
                   dict(value.get("terms") or {}), tuple(value.get("subdomains") or ()),
                   str(value.get("domain") or ""))


def head_fields(root: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(metadata, keywords): the ``content`` of a parsed page's descriptive and keyword ``<meta>``."""
    metadata: list[str] = []
    keywords: list[str] = []
    if root is None:
        return (), ()
    for el in root.iter("meta"):
        name = (el.get("name") or el.get("property") or el.get("itemprop") or "").strip().lower()
        content = " ".join((el.get("content") or "").split())
        if not content:
            continue
        if name in _KEYWORDS:
            keywords.append(content)
        elif name in _METADATA:
            metadata.append(content)
    return tuple(metadata), tuple(keywords)


def score_page(domain: Domain, lang: str | None, page: PageLocations, min_score: float,
               min_terms: int) -> TopicScore:
    """p and m of a page in ``lang`` (module docstring); relevant when p >= ``min_score`` and
    m >= ``min_terms``."""
    matcher = domain.matcher(lang)
    terms = domain.terms
    p = 0.0
    found: Counter[int] = Counter()
    in_text: Counter[int] = Counter()
    for location, texts in (("title", (page.title,)), ("metadata", page.metadata),
                            ("keywords", page.keywords), ("text", page.text)):
        weight = LOCATION_WEIGHTS[location]
        for text in texts:
            counts = matcher.count(text)
            for index, n in counts.items():
                p += n * terms[index].weight * weight
            found.update(counts)
            if location == "text":
                in_text.update(counts)
    m = sum(1 for index in in_text if terms[index].weight > 0)
    by_weight: Counter[str] = Counter()
    for index, n in found.items():
        for name in terms[index].subdomains:
            by_weight[name] += n * terms[index].weight
    named = {terms[index].term: n for index, n in sorted(found.items())}
    subdomains = tuple(name for name, w in by_weight.most_common() if w > 0)
    return TopicScore(p, m, p >= min_score and m >= min_terms, named, subdomains, domain.name)


def paragraph_terms(domain: Domain, lang: str | None, paragraphs: Sequence[str]) -> list[list[str]]:
    """The domain terms (as written in the domain file) found in each paragraph, in file order."""
    matcher = domain.matcher(lang)
    out = []
    for text in paragraphs:
        counts = matcher.count(text)
        out.append([domain.terms[i].term for i in sorted(counts) if domain.terms[i].weight > 0])
    return out
