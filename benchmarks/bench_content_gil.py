"""The content filter's alignment and model update beside a thread running Python: how often they
wait for the GIL.

In a crawl the content filter's thread runs beside the reactor, which holds the GIL most of the
time.  Each time the thread returns from code that let the GIL go (a nogil kernel, numpy's loops
over more than a few hundred elements) it waits for the reactor to hand it back, at the latest
after the switch interval (``BITEXT_GIL_SWITCH_INTERVAL``, 50 ms in a crawl; docs/benchmarks.md
(j)).  This trains a toy model (benchmarks/bench_content.py's language pair), then times
:func:`matchers.content.sentence_align.align` on parallel page pairs of each size and
:meth:`TranslationModel.update` on 30-sentence page pairs, first alone, then beside a thread
spinning in Python with the crawl's switch interval, as a thread of the close does (every kernel
lets the GIL go), then as the content filter's stage thread does (short kernels hold it,
matchers.gil_hold).  ``waits`` is the extra wall time a call took beside the spinner over its CPU
time, in switch intervals: about the number of times the call let the GIL go.

    python benchmarks/bench_content_gil.py [--sizes 40,300] [--calls 20] [--interval 0.05]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_content import ToyPair, chars  # noqa: E402

from matchers.content.sentence_align import align  # noqa: E402
from matchers.content.translation_model import TranslationModel  # noqa: E402
from matchers.gil_hold import hold_short_kernels  # noqa: E402


def timed(calls: list[Callable[[], object]]) -> tuple[float, float]:
    """CPU and wall seconds a call, over ``calls``."""
    c0, w0 = time.thread_time(), time.perf_counter()
    for call in calls:
        call()
    return (time.thread_time() - c0) / len(calls), (time.perf_counter() - w0) / len(calls)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="40,300", help="sentences a side of the aligned page pairs")
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--interval", type=float, default=0.05, help="the switch interval, seconds")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    toy = ToyPair(4000, 15, rng)
    model = TranslationModel("xa", "xb")
    for _ in range(200):
        d1, d2 = toy.pair(30, noise=0.0)
        model.update(list(zip(d1, d2, strict=True)))
    work: dict[str, list[list[Callable[[], object]]]] = {}
    for size in (int(s) for s in a.sizes.split(",")):
        pairs = [toy.pair(size) for _ in range(2 * a.calls)]
        work[f"align {size} x {size} sentences"] = [
            [lambda d=d: align(d[0], d[1], chars(d[0]), chars(d[1]), model) for d in pairs[k::2]] for k in (0, 1)]
    batches = [list(zip(*toy.pair(30, noise=0.0), strict=True)) for _ in range(2 * a.calls)]
    work["update, 30 sentence pairs"] = [[lambda b=b: model.update(b) for b in batches[k::2]] for k in (0, 1)]
    for hold in (False, True):  # compile and warm up both kernels of each
        hold_short_kernels(hold)
        for calls in work.values():
            calls[0][0]()
    hold_short_kernels(False)
    sys.setswitchinterval(a.interval)
    stop = threading.Event()

    def spin() -> None:
        x = 0
        while not stop.is_set():
            for i in range(1000):
                x += i

    print(f"switch interval {a.interval * 1e3:g} ms, {a.calls} calls each")
    print("| call | alone: CPU ms | beside a spinning thread: CPU ms | wall ms | waits a call "
          "| as a stage thread: wall ms | waits a call |")
    print("|---|---|---|---|---|---|---|")
    rows = {name: timed(calls[0]) for name, calls in work.items()}
    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    time.sleep(0.2)
    try:
        beside = {name: timed(calls[1]) for name, calls in work.items()}
        hold_short_kernels()
        staged = {name: timed(calls[0]) for name, calls in work.items()}
    finally:
        stop.set()
        spinner.join()
    for name in work:
        (cpu, wall), (cpu_s, wall_s) = beside[name], staged[name]
        print(f"| {name} | {rows[name][0] * 1e3:.2f} | {cpu * 1e3:.2f} | {wall * 1e3:.1f} | "
              f"{max(0.0, wall - cpu) / a.interval:.1f} | {wall_s * 1e3:.1f} | {max(0.0, wall_s - cpu_s) / a.interval:.1f} |")


if __name__ == "__main__":
    main()
