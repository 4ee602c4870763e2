"""Corrections a person makes in the viewer, and the gold standard they make.

A verdict is ``right`` or ``wrong`` for a pair the crawl found (or a candidate), ``missed`` for two
pages the crawl should have paired.  The latest verdict on a page pair (in either order) is the one
that counts.  The gold file (``lang1 TAB url1 TAB lang2 TAB url2``, what ``bitext eval --gold``
reads) holds the right and the missed pairs; a wrong pair is left out, so ``bitext eval`` counts
the crawl's pair as a false positive and the pages stay free for a right partner.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import IO

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from bitext_spider.store.models import CorrectionRow, PageRow

VERDICTS = ("right", "wrong", "missed")
GOLD_HEADER = "lang1\turl1\tlang2\turl2"


class CorrectionError(ValueError):
    """A correction that cannot be stored (shown to the user, status 400)."""


@dataclass
class Correction:
    id: int
    url1: str
    lang1: str
    url2: str
    lang2: str
    verdict: str
    created_at: float


def add_correction(s: Session, url1: str, url2: str, verdict: str, lang1: str = "", lang2: str = "") -> int:
    """Store a verdict on two pages; a stored page's language is its own, another's must be given."""
    url1, url2 = url1.strip(), url2.strip()
    if verdict not in VERDICTS:
        raise CorrectionError(f"verdict is one of {', '.join(VERDICTS)}")
    if not url1 or not url2:
        raise CorrectionError("two URLs are needed")
    if url1 == url2:
        raise CorrectionError("a page cannot pair with itself")
    stored = dict(s.execute(select(PageRow.url, PageRow.lang).where(PageRow.url.in_([url1, url2]))).all())
    langs = []
    for url, given in ((url1, lang1), (url2, lang2)):
        lang = stored.get(url) or given.strip()
        if url not in stored and not lang:
            raise CorrectionError(f"{url} is not a stored page: give its language")
        if not lang:
            raise CorrectionError(f"{url} has no identified language")
        langs.append(lang)
    result = s.execute(insert(CorrectionRow).values(url1=url1, lang1=langs[0], url2=url2, lang2=langs[1],
                                                    verdict=verdict, created_at=time.time()))
    s.commit()
    return int(result.inserted_primary_key[0])


def corrections(s: Session) -> list[Correction]:
    """Every stored correction, newest first."""
    return [Correction(r.id, r.url1, r.lang1, r.url2, r.lang2, r.verdict, r.created_at)
            for r in s.execute(select(CorrectionRow).order_by(CorrectionRow.id.desc())).scalars()]


def latest_verdicts(s: Session) -> list[Correction]:
    """The latest correction of each page pair, in the order the pairs were first corrected."""
    latest: dict[frozenset[str], Correction] = {}
    first: dict[frozenset[str], int] = {}
    for c in reversed(corrections(s)):
        key = frozenset((c.url1, c.url2))
        first.setdefault(key, c.id)
        latest[key] = c
    return sorted(latest.values(), key=lambda c: first[frozenset((c.url1, c.url2))])


def write_gold(s: Session, out: IO[str]) -> int:
    """The gold standard of the corrections (module docstring); returns the pairs written."""
    out.write(GOLD_HEADER + "\n")
    n = 0
    for c in latest_verdicts(s):
        if c.verdict in ("right", "missed"):
            out.write(f"{c.lang1}\t{c.url1}\t{c.lang2}\t{c.url2}\n")
            n += 1
    return n
