"""The worker channel: answers in order, big messages whole, errors and deaths reach the caller."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from bitext_spider.workers.channel import WorkerChannel, WorkerDied, batchable


def _echo(x):
    return x


def _fail(msg):
    raise ValueError(msg)


def _unpicklable():
    return lambda: None


def _sleep(seconds):
    time.sleep(seconds)
    return os.getpid()


_state: dict[str, int] = {}


def _init(start):
    _state["n"] = start


def _count():
    _state["n"] += 1
    return _state["n"]


def _square_batch(group):
    if any(x < 0 for (x,) in group):
        raise ValueError("negative")
    return [("batch", len(group), x * x) for (x,) in group]


@batchable(_square_batch)
def _square(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return ("one", 1, x * x)


@batchable(lambda group: [("short", x) for (x,) in group[:-1]])
def _short(x):
    return ("one", x)


@pytest.fixture
def channel():
    ch = WorkerChannel("test-worker", _init, (10,))
    yield ch
    ch.close()


def test_answers_come_back_in_order_and_whole(channel):
    payloads = [os.urandom(n) for n in (0, 1, 5000, 70_000, 3_000_000, 12)]

    async def go():
        echoed = await asyncio.gather(*(channel.call(_echo, p) for p in payloads))
        counts = [await channel.call(_count) for _ in range(3)]
        return echoed, counts

    echoed, counts = asyncio.run(go())
    assert echoed == payloads
    assert counts == [11, 12, 13]  # the initializer ran once, in the worker, before the calls
    assert channel.pending == 0


def test_an_error_reaches_the_caller_and_the_worker_goes_on(channel):
    async def go():
        first = channel.call(_fail, "bad page")
        second = channel.call(_unpicklable)
        third = channel.call(_echo, "next")
        with pytest.raises(ValueError, match="bad page"):
            await first
        with pytest.raises(Exception, match="pickle"):
            await second
        return await third

    assert asyncio.run(go()) == "next"
    assert channel.alive


def test_a_killed_worker_fails_what_it_held_and_what_comes_after(channel):
    async def go():
        pid = await channel.call(os.getpid)
        held = [channel.call(_sleep, 5) for _ in range(3)]
        await asyncio.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
        for future in held:
            with pytest.raises(WorkerDied, match="ended"):
                await future
        with pytest.raises(WorkerDied):
            await channel.call(_echo, 1)

    t0 = time.monotonic()
    asyncio.run(go())
    assert time.monotonic() - t0 < 5  # noticed at once, not after the sleeps
    assert not channel.alive


def test_a_cancelled_call_does_not_shift_the_answers(channel):
    async def go():
        slow = channel.call(_sleep, 0.5)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(slow, 0.05)
        return await channel.call(_echo, "mine")

    assert asyncio.run(go()) == "mine"


def test_close_ends_the_worker_and_later_calls_fail():
    ch = WorkerChannel("test-worker")

    async def call():
        return await ch.call(os.getpid)

    pid = asyncio.run(call())
    ch.close()
    assert ch.process.poll() == 0
    with pytest.raises(WorkerDied):
        asyncio.run(call())
    ch.close()  # idempotent
    assert pid == ch.pid


def test_another_thread_may_close_the_channel_while_the_loop_runs():
    """The crawl's runtime closes its workers from a thread while the reactor's loop runs."""
    ch = WorkerChannel("test-worker")

    async def go():
        pid = await ch.call(os.getpid)
        await asyncio.to_thread(ch.close)
        with pytest.raises(WorkerDied):
            await ch.call(os.getpid)
        return pid

    assert asyncio.run(go()) == ch.pid
    assert ch.process.poll() == 0


def test_calls_waiting_in_the_pipe_run_as_one_batch(channel):
    async def go():
        # While the worker sleeps, the next calls wait in its pipe; it then takes them at once.
        first = channel.call(_sleep, 0.5)
        squares = [channel.call(_square, x) for x in range(6)]
        await first
        batched = await asyncio.gather(*squares)
        second = channel.call(_sleep, 0.5)
        mixed = [channel.call(_square, x) for x in (2, -1, 3)]
        await second
        return batched, await asyncio.gather(*mixed, return_exceptions=True)

    async def short():
        first = channel.call(_sleep, 0.5)
        calls = [channel.call(_short, x) for x in range(4)]
        await first
        return await asyncio.gather(*calls)

    batched, mixed = asyncio.run(go())
    assert batched == [("batch", 6, x * x) for x in range(6)]
    # A batch form that loses a result is not trusted: the calls run one by one.
    assert asyncio.run(short()) == [("one", x) for x in range(4)]
    # The batch form raised: the calls ran one by one, and only the bad one failed.
    assert mixed[0] == ("one", 1, 4) and mixed[2] == ("one", 1, 9)
    assert isinstance(mixed[1], ValueError) and "negative: -1" in str(mixed[1])


def test_a_worker_that_cannot_start_fails_its_calls(monkeypatch):
    """An interpreter that exits at once (here /bin/false): the calls fail as a dead worker's do."""
    monkeypatch.setattr("sys.executable", "/bin/false")
    ch = WorkerChannel("test-worker")

    async def call():
        return await ch.call(os.getpid)

    try:
        with pytest.raises(WorkerDied):
            asyncio.run(asyncio.wait_for(call(), 10))
    finally:
        ch.close()
