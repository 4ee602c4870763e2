"""Which numpy operations let the GIL go, and what that costs a thread beside a busy one.

A crawl's reactor thread runs Python almost all the time; the structure filter's and the
content filter's threads run beside it.  When one of them enters code that releases the GIL
(a nogil numba kernel, or numpy inside most operations on more than a few hundred elements) the
reactor takes the GIL, and the thread waits to have it back until the reactor lets it go, at
the latest after the switch interval (``BITEXT_GIL_SWITCH_INTERVAL``, 50 ms in a crawl).

For each operation this starts a fresh process with one thread spinning in pure Python, runs the
operation 40 times on the main thread and counts how many calls took more than a millisecond
(each needs far less CPU than that).

    python benchmarks/bench_gil_release.py [--size 17000] [--interval 0.05]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

OPERATIONS = {
    "fancy index": "a[pos]",
    "boolean index": "a[mask]",
    "np.where": "np.where(mask, f, np.nan)",
    "np.minimum": "np.minimum(a, 5)",
    "comparison": "a >= 5",
    "division": "f / 3.0",
    "astype": "f.astype(np.int64)",
    "np.flatnonzero": "np.flatnonzero(mask)",
    "np.arange": "np.arange(n)",
    "np.zeros": "np.zeros(n)",
    "copy": "a.copy()",
    "np.unique": "np.unique(a)",
    "slice (no loop)": "a[: n // 2]",
}

PROBE = """
import sys, threading, time
import numpy as np
sys.setswitchinterval({interval})
n = {size}
a = np.arange(n); f = a.astype(float); pos = np.arange(0, n, 3); mask = a % 3 == 0
stop = False
def spin():
    x = 0
    while not stop:
        for i in range(1000):
            x += i
t = threading.Thread(target=spin); t.start(); time.sleep(0.2)
slow, cpu, wall = 0, 0.0, 0.0
for _ in range(40):
    c0, w0 = time.thread_time(), time.perf_counter()
    {op}
    c, w = time.thread_time() - c0, time.perf_counter() - w0
    slow += w > 0.001; cpu += c; wall += w
stop = True; t.join()
print(slow, cpu / 40 * 1e3, wall / 40 * 1e3)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=17_000, help="elements of each array")
    ap.add_argument("--interval", type=float, default=0.05, help="the switch interval, seconds")
    a = ap.parse_args()
    print(f"arrays of {a.size:,} elements, switch interval {a.interval * 1e3:g} ms, 40 calls each")
    print("| operation | calls over 1 ms | CPU a call, ms | wall a call, ms |")
    print("|---|---|---|---|")
    for name, op in OPERATIONS.items():
        out = subprocess.run([sys.executable, "-c", PROBE.format(interval=a.interval, size=a.size, op=op)],
                             capture_output=True, text=True, check=True).stdout.split()
        slow, cpu, wall = int(out[0]), float(out[1]), float(out[2])
        print(f"| {name} | {slow} / 40 | {cpu:.3f} | {wall:.2f} |")


if __name__ == "__main__":
    main()
