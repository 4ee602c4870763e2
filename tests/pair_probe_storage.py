"""A feed storage whose ``store`` fails, for the exit-status test of a feed that cannot be stored."""

from __future__ import annotations

from tempfile import TemporaryFile
from typing import IO, Any


class BrokenStorage:
    def __init__(self, uri: str, *, feed_options: dict[str, Any] | None = None) -> None:
        self.uri = uri

    def open(self, spider: Any) -> IO[bytes]:
        return TemporaryFile(prefix="feed-")

    def store(self, file: IO[bytes]) -> None:
        raise OSError(f"{self.uri}: the destination refused the feed")
