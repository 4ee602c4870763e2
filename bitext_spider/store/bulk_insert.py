"""``INSERT ... ON CONFLICT DO NOTHING`` of many rows with few statements on SQLite.

Python's sqlite3 module releases the interpreter's lock around every step of a statement, and an
``executemany`` is one step per row.  The writer thread inserts the pages, candidates and
sentences of a crawl (about a hundred rows a page on a ten-language site) while the reactor thread
runs Python; after each step the writer waits for the lock back, up to a switch interval (the
crawl sets 50 ms), and each hand-over interrupts the reactor.  One statement with many ``VALUES``
groups is one step for up to a thousand rows.  With another thread running Python throughout,
2,000 sentence rows took 96 s row by row and 0.4 s this way at a 50 ms switch interval, 7.1 s and
0.04 s at Python's 5 ms (``benchmarks/bench_bulk_insert.py``).

PostgreSQL keeps SQLAlchemy's own path: its driver (psycopg) sends an ``executemany`` as one
pipeline, not a round trip a row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

# Bound parameters in one statement: SQLite before 3.32 allows 999, later 32,766.
_MAX_PARAMS = 32_766 if sqlite3.sqlite_version_info >= (3, 32, 0) else 999
# Rows in one statement (its text grows with them: a few dozen kB at this size).
_MAX_ROWS = 1_000


class RowsInsert:
    """The multi-row form of one table's ``INSERT ... ON CONFLICT (keys) DO NOTHING`` for rows with
    the columns ``columns``: SQL text, and per bound parameter where its value comes from (the row,
    or the column's constant default) and its bind processor (JSON, dates, blobs).  ``usable`` is
    false where the compiled single-row statement is not in the expected form or a column left
    out has a default that is not a constant; the caller then inserts row by row."""

    def __init__(self, table: Table, columns: Sequence[str], conflict: Sequence[str], dialect: Dialect) -> None:
        stmt = sqlite_insert(table).on_conflict_do_nothing(index_elements=list(conflict))
        compiled = stmt.compile(dialect=dialect, column_keys=list(columns))
        names = list(compiled.positiontup or ())
        group = "(" + ", ".join("?" * len(names)) + ")"
        head, sep, tail = compiled.string.partition(" VALUES " + group)
        given = set(columns)
        self.usable = bool(names) and bool(sep) and "?" not in head and "?" not in tail
        # The columns the statement binds that the rows do not give: their constant defaults.
        self.constants: dict[str, Any] = {}
        for name in names:
            if name in given:
                continue
            default = table.c[name].default if name in table.c else None
            if default is None or not getattr(default, "is_scalar", False):
                self.usable = False
            else:
                self.constants[name] = default.arg  # type: ignore[attr-defined]
        self.names = names
        self.head, self.group, self.tail = head + " VALUES ", group, tail
        self.per_statement = max(1, min(_MAX_ROWS, _MAX_PARAMS // max(1, len(names))))
        self.processors: list[Callable[[Any], Any] | None] = [
            table.c[name].type.dialect_impl(dialect).bind_processor(dialect) if name in table.c else None
            for name in names
        ]
        self._full = self._text(self.per_statement)

    def _text(self, n: int) -> str:
        return self.head + ", ".join([self.group] * n) + self.tail

    def sql(self, n: int) -> str:
        """The statement for ``n`` rows (at most :attr:`per_statement`)."""
        return self._full if n == self.per_statement else self._text(n)

    def params(self, rows: Sequence[dict[str, Any]]) -> tuple[Any, ...]:
        """The rows' parameters in statement order, filled column by column (a loop over the rows
        per column in C, not over every value in Python)."""
        n, count = len(self.names), len(rows)
        out: list[Any] = [None] * (n * count)
        for k, (name, process) in enumerate(zip(self.names, self.processors, strict=True)):
            column = [self.constants[name]] * count if name in self.constants else list(map(itemgetter(name), rows))
            # As SQLAlchemy does, None goes through the processor too (JSON stores it as null).
            out[k::n] = column if process is None else list(map(process, column))
        return tuple(out)


class BulkInserter:
    """Inserts rows through :class:`RowsInsert` statements on SQLite (built once per table and
    column set), through SQLAlchemy's ``executemany`` elsewhere or when rows differ in columns."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self._forms: dict[tuple[str, tuple[str, ...], tuple[str, ...]], RowsInsert] = {}

    def insert(self, s: Session, table: Table, conflict: Sequence[str], rows: Sequence[dict[str, Any]],
               fallback: Any) -> None:
        """Insert ``rows`` into ``table``, skipping those that conflict on ``conflict``;
        ``fallback`` is the SQLAlchemy statement for the ``executemany`` path."""
        if not rows:
            return
        keys = rows[0].keys()
        form = None
        if self.dialect.name == "sqlite" and all(r.keys() == keys for r in rows):
            key = (table.name, tuple(keys), tuple(conflict))
            form = self._forms.get(key)
            if form is None:
                form = self._forms[key] = RowsInsert(table, tuple(keys), conflict, self.dialect)
        if form is None or not form.usable:
            s.execute(fallback, list(rows))
            return
        conn = s.connection()
        step = form.per_statement
        for i in range(0, len(rows), step):
            chunk = rows[i : i + step]
            conn.exec_driver_sql(form.sql(len(chunk)), form.params(chunk))
