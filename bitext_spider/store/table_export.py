"""The tables ``bitext export pairs|candidates|pages|keys`` writes: their columns and rows, as TSV
(a header line, one row a line) or JSONL (one object a line)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from bitext_spider.store.database import Store
from bitext_spider.store.models import PageRow, SiteRow
from matchers.score_names import CANDIDATE_COLUMNS
from matchers.site.url_keys import UrlKeyIndex

PAIR_COLUMNS = ["lang1", "url1", "lang2", "url2", "score"]
CANDIDATE_SCORE_COLUMNS = list(CANDIDATE_COLUMNS)
PAGE_COLUMNS = [
    "url", "lang", "lang_score", "eligible", "status", "encoding", "size_bytes", "n_tags",
    "n_paragraphs", "n_words", "depth", "title", "note",
]


def _tsv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value).replace("\t", " ").replace("\r", " ").replace("\n", " ")


KEY_COLUMNS = ["site", "key", "power", "generalized", "example", "field"]


def _rows(store: Store, what: str) -> tuple[list[str], Iterator[dict[str, Any]]]:
    if what == "keys":
        return KEY_COLUMNS, key_rows(store)
    if what == "pairs":
        return PAIR_COLUMNS, (
            dict(lang1=r.lang1, url1=r.url1, lang2=r.lang2, url2=r.url2, score=round(r.score, 6))
            for r in store.pairs()
        )
    if what == "candidates":
        cols = PAIR_COLUMNS + CANDIDATE_SCORE_COLUMNS

        def gen() -> Iterator[dict[str, Any]]:
            for r in store.candidates():
                row = dict(lang1=r.lang1, url1=r.url1, lang2=r.lang2, url2=r.url2, score=round(r.score, 6))
                scores = r.scores or {}
                for c in CANDIDATE_SCORE_COLUMNS:
                    row[c] = scores.get(c)
                for k, v in scores.items():
                    if k not in row:
                        row[k] = v
                yield row

        return cols, gen()
    return PAGE_COLUMNS, ({c: getattr(p, c) for c in PAGE_COLUMNS} for p in store.pages())


def export(store: Store, what: str, fmt: str, out: IO[str]) -> int:
    cols, rows = _rows(store, what)
    n = 0
    if fmt == "tsv":
        out.write("\t".join(cols) + "\n")
        for row in rows:
            out.write("\t".join(_tsv_cell(row.get(c)) for c in cols) + "\n")
            n += 1
    else:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def key_rows(store: Store) -> Iterator[dict[str, Any]]:
    """The URL pairing keys of every site, strongest first."""
    with Session(store.engine) as s:
        sites = s.execute(select(SiteRow.id, SiteRow.key).order_by(SiteRow.id)).all()
        for site_id, site_key in sites:
            index = UrlKeyIndex()
            for url, lang, eligible in s.execute(
                select(PageRow.url, PageRow.lang, PageRow.eligible).where(PageRow.site_id == site_id)
                .order_by(PageRow.id)
            ):
                if eligible:
                    index.add(url, lang)
            index.recompute()
            for row in index.rows():
                yield {"site": site_key, **{k: _plain(v) for k, v in row._asdict().items()}}


def _plain(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
