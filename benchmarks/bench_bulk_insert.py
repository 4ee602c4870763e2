"""Inserting sentence rows into SQLite while another thread keeps the interpreter busy.

The crawl's writer thread inserts rows while the reactor thread runs Python.  Python's sqlite3
module releases the interpreter's lock around each step of a statement; row by row
(SQLAlchemy's ``executemany``), every row is a step, and the writer waits for the lock back after
each.  The multi-row statements of ``bitext_spider.store.bulk_insert`` take hundreds of rows a step.

    .venv/bin/python benchmarks/bench_bulk_insert.py --rows 5000 --switch 0.05

Prints the seconds of each way, with the other thread idle and busy, and the ratio.  ``--switch``
is Python's switch interval (the crawl sets 0.05 s, ``BITEXT_GIL_SWITCH_INTERVAL``; Python's own
is 0.005 s).  No network; a temporary database file.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from bitext_spider.store.bulk_insert import BulkInserter
from bitext_spider.store.dialect import insert_for
from bitext_spider.store.models import Base, PageRow, SentenceRow, SiteRow

_KEY = ["page1_id", "page2_id", "position"]


def _rows(n: int) -> list[dict[str, Any]]:
    return [dict(site_id=1, page1_id=1, page2_id=2, position=i, lang1="en", lang2="fr",
                 text1=f"The sentence number {i} of the first page.", text2=f"La phrase numéro {i} de la page.",
                 score=0.5) for i in range(n)]


def _engine(path: Path) -> Any:
    engine = create_engine(f"sqlite:///{path}")
    Base.metadata.create_all(engine)
    with Session(engine) as s, s.begin():
        s.add(SiteRow(id=1, key="example.org", start_urls=[]))
        s.add_all([PageRow(id=i, site_id=1, url=f"http://example.org/{i}", lang="en") for i in (1, 2)])
    return engine


def _insert(engine: Any, rows: list[dict[str, Any]], bulk: bool) -> float:
    stmt = insert_for(engine, SentenceRow.__table__).on_conflict_do_nothing(index_elements=_KEY)
    inserter = BulkInserter(engine.dialect)
    start = time.perf_counter()
    with Session(engine) as s, s.begin():
        if bulk:
            inserter.insert(s, SentenceRow.__table__, _KEY, rows, stmt)
        else:
            s.execute(stmt, rows)
    return time.perf_counter() - start


class Busy:
    """A thread that runs Python until stopped (the reactor of a crawl, at its busiest)."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True)

    def _spin(self) -> None:
        n = 0
        while not self._stop.is_set():
            n += 1

    def __enter__(self) -> Busy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--switch", type=float, default=0.05, help="Python's switch interval, seconds")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    sys.setswitchinterval(args.switch)
    rows = _rows(args.rows)
    print(f"{args.rows} sentence rows, switch interval {args.switch} s")
    print("other thread | row by row, s | multi-row, s | ratio")
    with tempfile.TemporaryDirectory() as tmp:
        for busy in (False, True):
            times: dict[bool, list[float]] = {False: [], True: []}
            for i in range(args.repeat):
                for bulk in (False, True):
                    engine = _engine(Path(tmp) / f"{busy}-{bulk}-{i}.db")
                    if busy:
                        with Busy():
                            times[bulk].append(_insert(engine, rows, bulk))
                    else:
                        times[bulk].append(_insert(engine, rows, bulk))
                    engine.dispose()
            plain, multi = min(times[False]), min(times[True])
            print(f"{'busy' if busy else 'idle'} | {plain:.3f} | {multi:.3f} | {plain / multi:.1f}")


if __name__ == "__main__":
    main()
