"""The writer thread: the reactor never waits on the database.  Pipelines hand
:class:`~bitext_spider.store.records.PageRecord` objects to :class:`StoreWriter`, whose thread
commits them in batches (by count or time).  Batches commit in arrival order, so after a kill the
stored pages are a prefix of what was processed, and a resumed crawl re-fetches exactly the pages
that are missing."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from bitext_spider.store.database import Store
from bitext_spider.store.records import PageRecord

logger = logging.getLogger(__name__)

_FLUSH = object()
_STOP = object()


class StoreWriter:
    """A daemon thread that commits :class:`PageRecord` batches to a :class:`Store`."""

    def __init__(
        self,
        store: Store,
        batch: int = 200,
        interval: float = 0.5,
        on_written: Callable[[list[PageRecord]], None] | None = None,
    ) -> None:
        self.store = store
        self.batch = max(1, batch)
        self.interval = interval
        self.on_written = on_written
        self.failures = 0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="bitext-store-writer", daemon=True)
        self._thread.start()

    def submit(self, record: PageRecord) -> None:
        self._queue.put(record)

    @property
    def backlog(self) -> int:
        """Records submitted and not yet committed (approximately)."""
        return self._queue.qsize()

    def wait_below(self, n: int, poll: float = 0.02) -> None:
        """Block until at most ``n`` records wait (for backpressure from a worker thread)."""
        while self._queue.qsize() > n and self._thread.is_alive():
            time.sleep(poll)

    def flush(self, timeout: float | None = None) -> bool:
        """Block until everything submitted so far is committed (or has failed)."""
        return self.request_flush().wait(timeout)

    def request_flush(self) -> threading.Event:
        """Ask for everything submitted so far to be committed now, without waiting: the event
        is set once it is (or has failed)."""
        done = threading.Event()
        self._queue.put((_FLUSH, done))
        return done

    def close(self, timeout: float | None = None) -> None:
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def _commit(self, pending: list[PageRecord]) -> None:
        if not pending:
            return
        try:
            self.store.write(pending)
        except Exception:
            # One bad record must not take the batch down with it: retry one by one.
            logger.exception("writing a batch of %d pages failed; retrying one by one", len(pending))
            for rec in pending:
                try:
                    self.store.write([rec])
                except Exception:
                    self.failures += 1
                    logger.exception("page %s could not be stored", rec.url)
        if self.on_written is not None:
            self.on_written(pending)

    def _run(self) -> None:
        pending: list[PageRecord] = []
        while True:
            try:
                msg = self._queue.get(timeout=self.interval)
            except queue.Empty:
                self._commit(pending)
                pending = []
                continue
            if msg is _STOP:
                self._commit(pending)
                return
            if isinstance(msg, tuple) and msg and msg[0] is _FLUSH:
                self._commit(pending)
                pending = []
                msg[1].set()
                continue
            pending.append(msg)
            if len(pending) >= self.batch:
                self._commit(pending)
                pending = []
