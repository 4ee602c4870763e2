"""Where an export writes: standard output, a file, or a gzipped file when the name ends in
``.gz`` (every export format), with the file's directory created if it does not exist."""

from __future__ import annotations

import contextlib
import gzip
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def is_gzip(path: str | Path) -> bool:
    return str(path).endswith(".gz")


@contextlib.contextmanager
def open_output(path: str | Path | None, binary: bool = False, append: bool = False) -> Iterator[IO[Any]]:
    """A text (UTF-8, ``\\n`` line ends) or binary stream for ``path``; standard output for None.

    ``append`` adds to an existing file; a gzipped file then gets another gzip member, which every
    gzip reader decompresses as one stream.
    """
    if path is None or str(path) == "-":
        if binary and getattr(sys.stdout, "buffer", None) is None:
            # A text-only stream stands in for stdout (embedding, some test runners).
            buffer = io.BytesIO()
            yield buffer
            sys.stdout.write(buffer.getvalue().decode("utf-8"))
            return
        sys.stdout.flush()
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = ("a" if append else "w") + ("b" if binary else "t")
    text = {} if binary else {"encoding": "utf-8", "newline": ""}
    if is_gzip(path):
        with gzip.open(path, mode, **text) as fh:
            yield fh
        return
    with open(path, mode, **text) as fh:
        yield fh
