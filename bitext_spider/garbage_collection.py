"""Python's cyclic garbage collector paced for a crawl that keeps a large, growing heap.

With Python's default thresholds (a young collection every 700 net allocations, an older one
every 10 of the younger) a default crawl of the 10,000-page benchmark site spent 20 s of the
crawl process's time in the collector: 6,400 young collections took 4.0 s, 582 middle ones 4.4 s
and 48 full ones 11.9 s (about 250 ms each, every one walking all the state kept for the pages).
That process holds its GIL for nearly the whole crawl, so the reactor waits through all of it
(docs/benchmarks.md (c)).  A full collection is due once the objects that survived two younger
ones reach a quarter of the old generation, and at 700 allocations a young collection comes
while an item or a response is still on its way through the stages, so objects that die a moment
later keep adding to that count.  With 50,000 allocations between young collections the same
crawl made 40 young collections, 2 middle ones and no full one, 3.8 s in all.  The objects that
exist when the crawl starts (modules, the matchers' tables, the project's own) are also frozen
out of the collector's walks (``gc.freeze``) until the crawl ends.

Garbage without cycles is freed by reference counting whatever the thresholds; cyclic garbage
waits for the next young collection, a few MB of allocations later.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

_OLDER = (20, 10)  # collections of the younger generation between two of the next one


class CollectorPace:
    """Sets the young-generation threshold and freezes the startup objects for the time of a
    crawl, counts the collections and their time (``after``'s included), and puts Python's
    settings back at :meth:`stop`."""

    def __init__(self, young: int, after: Callable[[], None] | None = None) -> None:
        self._saved = gc.get_threshold()
        self._after = after  # called after each collection (bitext_spider.glibc_malloc's trimming)
        self.collections = 0
        self.seconds = 0.0
        self._started = 0.0
        self._stopped = False
        gc.set_threshold(young, *_OLDER)
        # Another crawl of this process may have frozen the heap already; it unfreezes it.
        self._froze = gc.get_freeze_count() == 0
        if self._froze:
            gc.freeze()
        gc.callbacks.append(self._timed)

    def _timed(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.collections += 1
            if self._after is not None:
                self._after()
            self.seconds += time.perf_counter() - self._started

    def stop(self) -> None:
        """Python's thresholds back, the frozen objects collectable again (idempotent)."""
        if self._stopped:
            return
        self._stopped = True
        gc.callbacks.remove(self._timed)
        if self._froze:
            gc.unfreeze()
        gc.set_threshold(*self._saved)
