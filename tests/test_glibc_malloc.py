"""The crawl process's malloc arenas limited (glibc)."""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import subprocess
import sys
import textwrap

import pytest

from bitext_spider.glibc_malloc import limit_arenas

_GLIBC = hasattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), "malloc_stats") and sys.platform == "linux"

# Eight threads alive at once, each allocating below the mmap threshold, then glibc's own count of
# its arenas (malloc_stats writes one "Arena N:" block per arena to stderr).
_PROGRAM = textwrap.dedent("""
    import ctypes, ctypes.util, sys, threading
    from bitext_spider.glibc_malloc import limit_arenas
    limit = int(sys.argv[1])
    if limit:
        assert limit_arenas(limit)
    barrier = threading.Barrier(8)
    kept = []
    def work():
        barrier.wait()
        kept.append([bytearray(20_000) for _ in range(50)])
        barrier.wait()
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_stats()
""")


def arenas(limit: int) -> int:
    proc = subprocess.run([sys.executable, "-c", _PROGRAM, str(limit)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return len(re.findall(r"^Arena \d+:", proc.stderr, re.MULTILINE))


@pytest.mark.skipif(not _GLIBC, reason="glibc's arenas")
def test_threads_share_the_limited_arenas():
    assert arenas(0) > 2  # glibc's own limit: an arena for each of the threads
    assert arenas(2) <= 2


def test_zero_leaves_the_c_library_alone():
    assert limit_arenas(0) is False


_TRIM_PROGRAM = textwrap.dedent("""
    import os
    from bitext_spider.glibc_malloc import heap_trimmer
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    chunks = [bytearray(20_000) for _ in range(10_000)]  # 200 MB on the heap (below mmap's threshold)
    pin = bytearray(20_000)  # keeps the heap's top in use: freeing the rest cannot shrink it
    del chunks
    before = rss()
    heap_trimmer()()
    print(before, rss())
""")


@pytest.mark.skipif(not _GLIBC, reason="glibc's heaps")
def test_trimming_gives_the_free_pages_back():
    proc = subprocess.run([sys.executable, "-c", _TRIM_PROGRAM], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    before, after = map(int, proc.stdout.split())
    assert before - after > 150 * 2**20, (before, after)
