"""One pair as the viewer shows it: both pages' text in reading order, main content apart from
boilerplate, the aligned sentences marked where they stand, the evidence and decision
(bitext_spider.store.explanation, as ``bitext explain`` gives them) and the other candidates of
each page.

A page stores its whole text (``pages.text``, one block a line) and, apart, its main-content
paragraphs (``pages.paragraphs``: ``[kind, lang, text]``, matchers.page.main_content), so a line
of the text that is not a main-content paragraph is boilerplate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session, aliased

from bitext_spider.store.explanation import Explanation, explain_pair
from bitext_spider.store.models import CandidateRow, CorrectionRow, PageRow, PairRow, SentenceRow


@dataclass
class Segment:
    text: str
    sentence: int | None = None  # index into the pair's sentences
    score: float | None = None


@dataclass
class Block:
    kind: str  # title, heading, listitem, text; "boilerplate" for the rest of the page
    lang: str | None
    segments: list[Segment]

    @property
    def boilerplate(self) -> bool:
        return self.kind == "boilerplate"


@dataclass
class OtherCandidate:
    page1_id: int
    page2_id: int
    url: str
    lang: str
    score: float
    status: str


@dataclass
class PageSide:
    id: int
    url: str
    lang: str
    title: str
    n_words: int
    blocks: list[Block]
    others: list[OtherCandidate] = field(default_factory=list)


@dataclass
class AlignedSentence:
    position: int
    text1: str
    text2: str
    score: float
    found: tuple[bool, bool] = (False, False)  # marked in page 1's and page 2's text


@dataclass
class PairView:
    sides: tuple[PageSide, PageSide]
    sentences: list[AlignedSentence]
    explanation: Explanation
    status: str  # final, lost, rejected, none (not a candidate)
    corrections: list[tuple[str, float]]  # verdict, time


def mark_sentences(text: str, sentences: list[tuple[int, str, float]]) -> list[Segment]:
    """Cut ``text`` into segments, the sentences found in it (leftmost first, no overlap) marked."""
    hits = []
    for idx, sentence, score in sentences:
        needle = sentence.strip()
        at = text.find(needle) if needle else -1
        if at >= 0:
            hits.append((at, at + len(needle), idx, score))
    hits.sort()
    out, pos = [], 0
    for start, end, idx, score in hits:
        if start < pos:
            continue
        if start > pos:
            out.append(Segment(text[pos:start]))
        out.append(Segment(text[start:end], idx, score))
        pos = end
    if pos < len(text) or not out:
        out.append(Segment(text[pos:]))
    return out


def page_blocks(page: PageRow, sentences: list[tuple[int, str, float]]) -> tuple[list[Block], set[int]]:
    """The page's text in reading order as blocks, and the sentences marked in it."""
    content = {}
    for para in page.paragraphs or []:
        if len(para) >= 3 and para[2]:
            content.setdefault(para[2], (para[0], para[1]))
    lines = [ln for ln in (page.text or "").split("\n") if ln.strip()]
    if not lines or not any(ln in content for ln in lines):
        # Text and paragraphs do not line up (an older crawl): the main content alone.
        lines = list(content)
    blocks, found = [], set()
    for line in lines:
        if line in content:
            kind, lang = content[line]
            segments = mark_sentences(line, sentences)
            found.update(s.sentence for s in segments if s.sentence is not None)
            blocks.append(Block(kind, lang, segments))
        else:
            blocks.append(Block("boilerplate", None, [Segment(line)]))
    return blocks, found


def _others(s: Session, page: PageRow, partner_id: int) -> list[OtherCandidate]:
    """The page's candidates but the one with ``partner_id``, best first; one query per side of
    the pair the page is on, so each goes through its own index."""
    final = (select(PairRow.id).where(PairRow.page1_id == CandidateRow.page1_id,
                                      PairRow.page2_id == CandidateRow.page2_id).exists())
    rows = []
    for mine, theirs in ((CandidateRow.page1_id, CandidateRow.page2_id), (CandidateRow.page2_id, CandidateRow.page1_id)):
        other = aliased(PageRow)
        q = (select(CandidateRow.id, CandidateRow.page1_id, CandidateRow.page2_id, other.url, other.lang,
                    CandidateRow.score, CandidateRow.accepted, final)
             .join(other, other.id == theirs)
             .where(mine == page.id, theirs != partner_id))
        rows += s.execute(q).all()
    rows.sort(key=lambda r: (-r[5], r[0]))
    return [OtherCandidate(a, b, url, lang or "und", score,
                           "final" if is_final else ("lost" if accepted is None or accepted else "rejected"))
            for _id, a, b, url, lang, score, accepted, is_final in rows]


def pair_view(s: Session, page1_id: int, page2_id: int) -> PairView | None:
    """The pair of the two pages (in either order), or None when a page is not stored."""
    lo, hi = sorted((page1_id, page2_id))
    p1, p2 = s.get(PageRow, lo), s.get(PageRow, hi)
    if p1 is None or p2 is None:
        return None
    rows = s.execute(select(SentenceRow).where(SentenceRow.page1_id == lo, SentenceRow.page2_id == hi)
                     .order_by(SentenceRow.position)).scalars().all()
    sentences = [AlignedSentence(r.position, r.text1, r.text2, r.score) for r in rows]
    blocks1, found1 = page_blocks(p1, [(i, x.text1, x.score) for i, x in enumerate(sentences)])
    blocks2, found2 = page_blocks(p2, [(i, x.text2, x.score) for i, x in enumerate(sentences)])
    for i, x in enumerate(sentences):
        x.found = (i in found1, i in found2)
    ex = explain_pair(s, p1.url, p2.url)
    status = "none" if not ex.candidate else "final" if ex.final else "lost" if ex.accepted else "rejected"
    sides = (PageSide(p1.id, p1.url, p1.lang or "und", p1.title, p1.n_words, blocks1, _others(s, p1, p2.id)),
             PageSide(p2.id, p2.url, p2.lang or "und", p2.title, p2.n_words, blocks2, _others(s, p2, p1.id)))
    corrections = [(v, t) for v, t in s.execute(
        select(CorrectionRow.verdict, CorrectionRow.created_at)
        .where(or_(and_(CorrectionRow.url1 == p1.url, CorrectionRow.url2 == p2.url),
                   and_(CorrectionRow.url1 == p2.url, CorrectionRow.url2 == p1.url)))
        .order_by(CorrectionRow.id))]
    return PairView(sides, sentences, ex, status, corrections)


def page_side(s: Session, page_id: int) -> PageSide | None:
    """One page with its candidates (the page view)."""
    page = s.get(PageRow, page_id)
    if page is None:
        return None
    blocks, _ = page_blocks(page, [])
    return PageSide(page.id, page.url, page.lang or "und", page.title, page.n_words, blocks, _others(s, page, -1))
