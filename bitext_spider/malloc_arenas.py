"""glibc's malloc arenas limited in the crawl process.

glibc gives each thread that allocates while the others hold the main arena an arena of its own,
up to eight per core.  The crawl process has several such threads (the reactor, the content
filter's, the database writer, Scrapy's and asyncio's pools), and what one thread frees in its
arena is only reused by the threads on that arena: freed pages stay in the process.  With two
arenas the crawl process of the 10,000-page benchmark peaked about 34 MB lower
(docs/benchmarks.md (i)); its threads take turns on the interpreter lock anyway, so they seldom
wait for an arena.  This is what ``MALLOC_ARENA_MAX=2`` in the environment does, applied from
the project's settings since a crawl's environment is not always the project's to set (Scrapyd
starts the crawl).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)

_M_ARENA_MAX = -8  # malloc.h


def limit_arenas(n: int) -> bool:
    """At most ``n`` arenas for the threads that get one from now on; False where the C library
    has no such option (not glibc) or ``n`` is 0.  Arenas already made stay in use."""
    if n <= 0:
        return False
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):  # no mallopt: macOS, Windows
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    applied = bool(mallopt(_M_ARENA_MAX, n))  # musl has mallopt but ignores it: 0
    if applied:
        logger.debug("malloc arenas limited to %d", n)
    return applied
