"""What differs between the store's database dialects, and the rollback signal of its
compare-and-set writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from sqlalchemy.engine import Engine


def insert_for(engine: Engine, table: Any) -> Any:
    """``INSERT`` that can take ``ON CONFLICT DO NOTHING`` on the engine's dialect."""
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table)


class Changed(Exception):
    """A row changed since it was read: the transaction is rolled back."""


T = TypeVar("T")


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``items`` in slices of ``size``: an IN list of bound parameters stays under the databases'
    limits."""
    for i in range(0, len(items), size):
        yield items[i : i + size]
