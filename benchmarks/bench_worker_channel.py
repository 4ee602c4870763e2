"""Worker-process transports side by side: ``ProcessPoolExecutor`` against ``WorkerChannel``.

Both run the same calls from an asyncio loop (the crawl's situation): ``--calls`` requests of
``--request`` random bytes, each answered with ``--answer`` bytes, at most ``--inflight`` at a
time (the crawl's concurrent requests).  Reported per transport: wall time, and the CPU time of
the calling process (all its threads: the pool's feeder and manager threads count) per call.

    .venv/bin/python benchmarks/bench_worker_channel.py --calls 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bitext_spider.workers.channel import WorkerChannel  # noqa: E402


def answer(body: bytes, size: int) -> bytes:
    return body[:size]


async def _run(call, calls: int, body: bytes, size: int, inflight: int) -> tuple[float, float]:
    await call(answer, b"warm", 1)
    gate = asyncio.Semaphore(inflight)

    async def one() -> None:
        async with gate:
            out = await call(answer, body, size)
            assert len(out) == min(size, len(body))

    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one() for _ in range(calls)))
    return time.perf_counter() - t0, time.process_time() - c0


def run_pool(calls: int, body: bytes, size: int, inflight: int) -> tuple[float, float]:
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    try:
        return asyncio.run(_run(lambda fn, *a: asyncio.wrap_future(pool.submit(fn, *a)), calls, body, size, inflight))
    finally:
        pool.shutdown()


def run_channel(calls: int, body: bytes, size: int, inflight: int) -> tuple[float, float]:
    channel = WorkerChannel("bench-worker")
    try:
        return asyncio.run(_run(channel.call, calls, body, size, inflight))
    finally:
        channel.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--request", type=int, default=30000, help="request bytes (a page's body)")
    ap.add_argument("--answer", type=int, default=5000, help="answer bytes")
    ap.add_argument("--inflight", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    body = os.urandom(args.request)
    results: dict[str, list[tuple[float, float]]] = {"ProcessPoolExecutor": [], "WorkerChannel": []}
    for _ in range(args.repeat):  # alternate, so both see the same machine
        results["ProcessPoolExecutor"].append(run_pool(args.calls, body, args.answer, args.inflight))
        results["WorkerChannel"].append(run_channel(args.calls, body, args.answer, args.inflight))
    print(f"{args.calls} calls, {args.request} B requests, {args.answer} B answers, {args.inflight} in flight, "
          f"median of {args.repeat} alternating runs")
    print("| transport | wall s | caller CPU s | caller CPU us/call |")
    print("|---|---|---|---|")
    med = {}
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        med[name] = (wall, cpu)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {cpu / args.calls * 1e6:.0f} |")
    (pw, pc), (cw, cc) = med["ProcessPoolExecutor"], med["WorkerChannel"]
    print(f"ratio pool/channel: wall {pw / cw:.2f}, caller CPU {pc / cc:.2f}")


if __name__ == "__main__":
    main()
