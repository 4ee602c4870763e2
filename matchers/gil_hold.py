"""Whether the calling thread's short kernels hold the GIL.

A crawl's stage threads (the structure and the content filters') run beside the reactor, which
holds the GIL most of the time: a kernel that lets it go makes its thread wait to have it back, up
to the switch interval (50 ms in a crawl, docs/benchmarks.md (j)).  There a kernel whose work is
shorter than that wait holds the GIL instead (twin kernels compiled without nogil:
matchers.content.alignment_dp, matchers.content.estep, matchers.structure.structure_filter).
Elsewhere every kernel lets it go: the close's steps share the GIL with the models' save running
beside them, which a held kernel would stall (measured slower on W3C), and a worker process or a
test has no reactor.  The setting is per thread, as numba's number of threads is.
"""

from __future__ import annotations

import threading

_local = threading.local()


def hold_short_kernels(on: bool = True) -> None:
    """Let the calling thread's short kernels hold the GIL (a stage thread's initializer)."""
    _local.hold = on


def holds_short_kernels() -> bool:
    """Whether :func:`hold_short_kernels` was set for the calling thread."""
    return bool(getattr(_local, "hold", False))
