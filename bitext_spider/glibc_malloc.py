"""glibc's allocator told to keep less freed memory in the crawl process.

**Arenas.**  glibc gives each thread that allocates while the others hold the main arena an arena
of its own, up to eight per core.  The crawl process has several such threads (the reactor, the
content filter's, the database writer, Scrapy's and asyncio's pools), and what one thread frees
in its arena is only reused by the threads on that arena: freed pages stay in the process.  Two
arenas are what ``MALLOC_ARENA_MAX=2`` in the environment gives, applied from the project's
settings since a crawl's environment is not always the project's to set (Scrapyd starts the
crawl); its threads take turns on the interpreter lock anyway, so they seldom wait for an arena.

**Trimming.**  Memory freed inside an arena's heap goes back to the system only from the heap's
top; ``malloc_trim`` also gives back the free pages in the middle of every arena.  The paced
collector (bitext_spider.garbage_collection) calls it after each of its collections, about forty
times in the 10,000-page benchmark crawl, when the items that died since the last one are freed.

On the 10,000-page benchmark the crawl process peaked about 20 MB lower with the arenas limited,
and 5-20 MB lower again with the trimming (one run each, docs/benchmarks.md (c)).  Other C
libraries (musl, macOS) have neither: nothing is done there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

_M_ARENA_MAX = -8  # malloc.h


def _libc_function(name: str) -> Any | None:
    try:
        return getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):  # not glibc: macOS, Windows, musl without the function
        return None


def limit_arenas(n: int) -> bool:
    """At most ``n`` arenas for the threads that get one from now on; False where the C library
    has no such option (not glibc) or ``n`` is 0.  Arenas already made stay in use."""
    mallopt = _libc_function("mallopt") if n > 0 else None
    if mallopt is None:
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    applied = bool(mallopt(_M_ARENA_MAX, n))  # musl has mallopt but ignores it: 0
    if applied:
        logger.debug("malloc arenas limited to %d", n)
    return applied


def heap_trimmer() -> Callable[[], None] | None:
    """A call that gives the free pages of glibc's heaps back to the system, or None (not glibc)."""
    trim = _libc_function("malloc_trim")
    if trim is None:
        return None
    trim.argtypes = (ctypes.c_size_t,)
    trim.restype = ctypes.c_int

    def trim_heaps() -> None:
        trim(0)

    return trim_heaps
