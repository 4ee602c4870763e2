"""The ``bitext`` command: read the crawl database, and run the bundled offline demo.

    bitext export pairs|candidates|pages [--db URL] [--format tsv|jsonl] [-o FILE]
    bitext demo [--dir DIR] [--docs N] [--langs en,fr,de,es]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from bitext_spider.store import Store

PAIR_COLUMNS = ["lang1", "url1", "lang2", "url2", "score"]
CANDIDATE_SCORE_COLUMNS = [
    "size_file", "size_tags", "size_paragraphs", "edit_distance", "structure_threshold", "structure",
]
PAGE_COLUMNS = [
    "url", "lang", "lang_score", "eligible", "status", "encoding", "size_bytes", "n_tags",
    "n_paragraphs", "n_words", "depth", "title", "note",
]


def db_url(value: str) -> str:
    """Accept a SQLAlchemy URL or a plain path to a SQLite file."""
    return value if "://" in value else f"sqlite:///{value}"


def _tsv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value).replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _rows(store: Store, what: str) -> tuple[list[str], Iterator[dict[str, Any]]]:
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


def cmd_export(args: argparse.Namespace) -> int:
    url = db_url(args.db)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        print(f"bitext: no database at {url}", file=sys.stderr)
        return 2
    store = Store(url, create=False)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8", newline="") as fh:
                n = export(store, args.what, args.format, fh)
        else:
            n = export(store, args.what, args.format, sys.stdout)
    except Exception as exc:  # an unreadable database gets one clear line, not a traceback
        print(f"bitext: cannot read {url}: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(f"bitext: {n} {args.what} exported", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from bitext_spider.demo import run_demo

    return run_demo(
        workdir=Path(args.dir),
        n_docs=args.docs,
        langs=[x.strip() for x in args.langs.split(",") if x.strip()],
    )


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="bitext", description="Read the bitext crawl database; run the demo.")
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="print pairs, candidates or pages")
    ex.add_argument("what", choices=["pairs", "candidates", "pages"])
    ex.add_argument("--db", default="sqlite:///bitext.db", help="SQLAlchemy URL or SQLite file path")
    ex.add_argument("--format", choices=["tsv", "jsonl"], default="tsv")
    ex.add_argument("-o", "--output", help="write to this file instead of standard output")
    ex.set_defaults(func=cmd_export)
    demo = sub.add_parser("demo", help="generate a demo site, serve it on loopback, crawl it, print pairs")
    demo.add_argument("--dir", default="bitext-demo", help="where the demo site and database go")
    demo.add_argument("--docs", type=int, default=30, help="documents in the demo site")
    demo.add_argument("--langs", default="en,fr,de,es", help="languages of the demo site")
    demo.set_defaults(func=cmd_demo)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
