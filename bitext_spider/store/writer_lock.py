"""One crawl at a time writes a SQLite database.

SQLite serializes writers with a file lock that a busy crawl holds most of the time, so a second
crawl on the same file fails midway with "database is locked".  A crawl (or ``bitext resolve``)
takes an operating-system lock on ``DB.lock`` beside the database first and refuses to start when
another process holds it.  The operating system drops the lock when its process dies, kill -9
included, so a killed crawl never leaves a stale lock behind.  Readers (``bitext export``) do not
take it: WAL lets them read while a crawl writes.  PostgreSQL needs no such lock.
"""

from __future__ import annotations

from filelock import FileLock, Timeout

from bitext_spider.store.open_errors import SEVERAL_WRITERS, sqlite_path
from bitext_spider.user_errors import DatabaseError


class WriterLock:
    """Held from the crawl's start to its close; nothing for databases other than a SQLite file."""

    def __init__(self, url: str) -> None:
        self.path = sqlite_path(url)
        self._lock: FileLock | None = None
        if self.path is None:
            return
        if not self.path.parent.is_dir():
            raise DatabaseError(f"cannot create the SQLite database {self.path}: the directory "
                                f"{self.path.parent} does not exist (create it, or give another path)")
        lock = FileLock(f"{self.path}.lock", timeout=0, thread_local=False)
        try:
            lock.acquire()
        except Timeout:
            raise DatabaseError(f"another crawl is writing the SQLite database {self.path}; "
                                f"{SEVERAL_WRITERS}") from None
        except OSError as exc:
            raise DatabaseError(f"cannot lock the SQLite database {self.path} for writing ({exc.strerror}): "
                                f"check the permissions of {self.path.parent}") from exc
        self._lock = lock

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None
