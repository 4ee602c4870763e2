"""The pair list: final pairs or candidates, filtered and sorted in the database, a page at a time.

Pages are cut by keyset (the last row's sort key), not by offset, so the hundredth page of a
large crawl costs what the first does: the sorts follow the indexes ``ix_pairs_score`` and
``ix_candidates_score`` (score, id) and the primary keys.  The final pairs in the default sort
are the rows of ``bitext export pairs`` in its order (score descending, then id).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Select, and_, false, func, or_, select, true
from sqlalchemy.orm import Session, aliased

from bitext_spider.store.models import CandidateRow, PageRow, PairRow

STATUSES = {
    "final": "final pairs",
    "lost": "accepted candidates not kept",  # by the one-to-one resolution
    "rejected": "rejected candidates",
    "all": "all candidates",
}
SORTS = {"score": "score, best first", "score_asc": "score, worst first", "found": "order found"}
PAGE_SIZES = (25, 50, 100, 200)


class BadFilter(ValueError):
    """A query parameter the list cannot take (shown to the user, status 400)."""


@dataclass(frozen=True)
class PairFilter:
    site: int | None = None
    langs: tuple[str, str] | None = None  # sorted
    min_score: float | None = None
    max_score: float | None = None
    deciding: str | None = None
    status: str = "final"
    sort: str = "score"
    after: tuple[float, int] | None = None  # the sort key of the row before the page
    before: tuple[float, int] | None = None  # the sort key of the row after the page
    last: bool = False
    limit: int = 50

    @classmethod
    def from_query(cls, q: Mapping[str, str]) -> PairFilter:
        def number(name: str, kind: type) -> Any:
            value = (q.get(name) or "").strip()
            if not value:
                return None
            try:
                return kind(value)
            except ValueError:
                raise BadFilter(f"{name} must be a number, got {value!r}") from None

        langs = None
        if q.get("langs"):
            parts = q["langs"].split("-")
            if len(parts) != 2 or not all(parts):
                raise BadFilter(f"langs takes two codes joined by '-', got {q['langs']!r}")
            langs = (min(parts), max(parts))
        status = q.get("status") or "final"
        sort = q.get("sort") or "score"
        if status not in STATUSES:
            raise BadFilter(f"status is one of {', '.join(STATUSES)}")
        if sort not in SORTS:
            raise BadFilter(f"sort is one of {', '.join(SORTS)}")
        limit = number("limit", int) or 50
        if limit not in PAGE_SIZES:
            raise BadFilter(f"limit is one of {', '.join(map(str, PAGE_SIZES))}")
        return cls(site=number("site", int), langs=langs, min_score=number("min", float),
                   max_score=number("max", float), deciding=(q.get("deciding") or "").strip() or None,
                   status=status, sort=sort, after=_cursor(q.get("after")), before=_cursor(q.get("before")),
                   last=q.get("last") == "1", limit=limit)

    def query(self, **changes: Any) -> dict[str, str]:
        """The query parameters of this filter with ``changes`` (for links)."""
        f = replace(self, **changes)
        out = {
            "site": "" if f.site is None else str(f.site),
            "langs": "-".join(f.langs) if f.langs else "",
            "min": "" if f.min_score is None else repr(f.min_score),
            "max": "" if f.max_score is None else repr(f.max_score),
            "deciding": f.deciding or "",
            "status": f.status if f.status != "final" else "",
            "sort": f.sort if f.sort != "score" else "",
            "limit": str(f.limit) if f.limit != 50 else "",
            "after": _key_text(f.after),
            "before": _key_text(f.before),
            "last": "1" if f.last else "",
        }
        return {k: v for k, v in out.items() if v}


def _cursor(value: str | None) -> tuple[float, int] | None:
    if not value:
        return None
    score, sep, ident = value.partition("_")
    try:
        return float(score), int(ident)
    except ValueError:
        raise BadFilter(f"bad page cursor {value!r}") from None


def _key_text(key: tuple[float, int] | None) -> str:
    return "" if key is None else f"{key[0]!r}_{key[1]}"


@dataclass
class ListedPair:
    key: tuple[float, int]
    page1_id: int
    page2_id: int
    lang1: str
    url1: str
    lang2: str
    url2: str
    score: float
    deciding: str | None
    status: str


@dataclass
class PairPage:
    rows: list[ListedPair]
    total: int
    has_prev: bool
    has_next: bool


def _final_exists() -> Any:
    return (select(PairRow.id).where(PairRow.page1_id == CandidateRow.page1_id,
                                     PairRow.page2_id == CandidateRow.page2_id).exists())


def _selection(f: PairFilter) -> tuple[Any, list[Any]]:
    """The table the rows come from (its (score, id) is the sort key) and the conditions.

    Final pairs filtered by deciding evidence are read from the candidates (the index on
    (deciding, score, id) then gives them in order) and kept when a final pair exists; their
    scores are the pairs' own, so the order is the same but for ties."""
    if f.status == "final" and not f.deciding:
        table, where = PairRow, []
    else:
        table = CandidateRow
        where = {"final": [_final_exists()], "lost": [CandidateRow.accepted.is_not(False), ~_final_exists()],
                 "rejected": [CandidateRow.accepted.is_(False)], "all": []}[f.status]
    if f.site is not None:
        where.append(table.site_id == f.site)
    if f.langs:
        a, b = f.langs
        where.append(or_(and_(table.lang1 == a, table.lang2 == b), and_(table.lang1 == b, table.lang2 == a)))
    if f.min_score is not None:
        where.append(table.score >= f.min_score)
    if f.max_score is not None:
        where.append(table.score <= f.max_score)
    if f.deciding:
        where.append(CandidateRow.deciding == f.deciding)
    return table, where


def _base(f: PairFilter) -> tuple[Select[Any], Select[Any], Any, Any]:
    """The selected rows, unsorted, their count, and the sort key columns (score, id)."""
    table, where = _selection(f)
    p1, p2 = aliased(PageRow), aliased(PageRow)
    count = select(func.count()).select_from(table).where(*where)
    if table is PairRow:
        on = and_(CandidateRow.page1_id == PairRow.page1_id, CandidateRow.page2_id == PairRow.page2_id)
        q = (select(PairRow.id, PairRow.score, PairRow.page1_id, PairRow.page2_id, PairRow.lang1, PairRow.lang2,
                    p1.url, p2.url, CandidateRow.deciding, true().label("final"), true().label("accepted"))
             .outerjoin(CandidateRow, on))
    else:
        # Whether a candidate is final is known from the status, but for all candidates.
        final: Any = _final_exists() if f.status == "all" else (true() if f.status == "final" else false())
        q = select(CandidateRow.id, CandidateRow.score, CandidateRow.page1_id, CandidateRow.page2_id,
                   CandidateRow.lang1, CandidateRow.lang2, p1.url, p2.url, CandidateRow.deciding,
                   final.label("final"), CandidateRow.accepted)
    q = q.join(p1, p1.id == table.page1_id).join(p2, p2.id == table.page2_id).where(*where)
    return q, count, table.score, table.id


def _keyset(q: Select[Any], f: PairFilter, score: Any, ident: Any, backwards: bool) -> Select[Any]:
    """Order ``q`` by the filter's sort, and start it after (or, ``backwards``, before) the cursor."""
    cursor = f.before if backwards else f.after
    if f.sort == "found":
        if cursor is not None:
            q = q.where(ident < cursor[1] if backwards else ident > cursor[1])
        return q.order_by(ident.desc() if backwards else ident)
    descending = (f.sort == "score") != backwards
    if cursor is not None:
        s, i = cursor
        # Ties on score go by id ascending in both sorts (the export's order).
        if f.sort == "score":
            q = q.where(or_(score > s, and_(score == s, ident < i)) if backwards
                        else or_(score < s, and_(score == s, ident > i)))
        else:
            q = q.where(or_(score < s, and_(score == s, ident < i)) if backwards
                        else or_(score > s, and_(score == s, ident > i)))
    id_order = ident.desc() if backwards else ident
    return q.order_by(score.desc() if descending else score, id_order)


def list_pairs(s: Session, f: PairFilter) -> PairPage:
    q, count, score, ident = _base(f)
    backwards = f.before is not None or f.last
    rows = s.execute(_keyset(q, f, score, ident, backwards).limit(f.limit + 1)).all()
    more = len(rows) > f.limit
    rows = rows[: f.limit]
    if backwards:
        rows.reverse()
        has_prev, has_next = more, not f.last
    else:
        has_prev, has_next = f.after is not None, more
    total = s.execute(count).scalar_one()
    listed = [
        ListedPair((r[1], r[0]), r[2], r[3], r[4], r[6], r[5], r[7], r[1], r[8],
                   "final" if r[9] else ("lost" if r[10] is None or r[10] else "rejected"))
        for r in rows
    ]
    return PairPage(listed, total, has_prev, has_next)


def deciding_values(s: Session) -> list[str]:
    """The deciding evidence names stored, for the filter's choices."""
    return [v for (v,) in s.execute(select(CandidateRow.deciding).where(CandidateRow.deciding.is_not(None))
                                    .distinct().order_by(CandidateRow.deciding))]


def language_pairs(s: Session) -> list[str]:
    """The candidates' language pairs, as ``a-b`` with the codes sorted."""
    seen = {"-".join(sorted((a, b))) for a, b in s.execute(select(CandidateRow.lang1, CandidateRow.lang2).distinct())}
    return sorted(seen)

