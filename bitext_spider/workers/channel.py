"""The crawl's worker processes (page parsing, structure filter): one process behind two pipes
that the event loop reads and writes itself.

``concurrent.futures.ProcessPoolExecutor`` was the first transport.  Each call crossed three
threads of the crawl process (the submitting one, the queue feeder that pickles and writes, the
manager that reads and wakes the loop through a self-pipe), and each crossing had to win the GIL
back from the reactor.  Side by side on this machine (``benchmarks/bench_worker_channel.py``)
the crawl process spent several times more CPU per call that way than with :class:`WorkerChannel`,
where the loop writes the request and a reader callback on the loop resolves the future:
docs/benchmarks.md (c) has the figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import multiprocessing.spawn
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

# Framing of multiprocessing.connection: a signed 32-bit big-endian length, or -1 followed by a
# 64-bit length, so the worker's side can use Connection.recv_bytes / send_bytes as they are.
_SHORT = struct.Struct("!i")
_LONG = struct.Struct("!Q")
_F_SETPIPE_SZ = 1031  # Linux; a bigger pipe takes a page's request in one write
_PIPE_SIZE = 1 << 20
_READ_SIZE = 1 << 20


class WorkerDied(Exception):
    """The worker process ended (killed, crashed, closed) before it answered."""


def exit_with_parent(name: str, every: float = 1.0) -> None:
    """End this worker process when the crawl process (its parent) is gone.

    The closed request pipe ends an idle worker; this also ends one that a SIGKILLed crawl left
    in the middle of a long computation."""

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name=name, daemon=True).start()


def _frame(data: bytes) -> bytes:
    n = len(data)
    head = _SHORT.pack(n) if n <= 0x7FFFFFFF else _SHORT.pack(-1) + _LONG.pack(n)
    return head + data


def _error_answer(exc: BaseException) -> bytes:
    try:
        return pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that does not pickle still reaches the caller as text
        text = "".join(traceback.format_exception(exc))
        return pickle.dumps((False, RuntimeError(text)), protocol=pickle.HIGHEST_PROTOCOL)


# Most requests, and bytes of requests, a worker takes from its pipe at once (see _serve).
_MAX_BATCH = 32
_MAX_BATCH_BYTES = 4 << 20


def batchable(batch: Callable[[list[tuple[Any, ...]]], list[Any]]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a worker function as having a batch form: ``batch(list of args) -> list of results``.

    When several calls of the function wait in the pipe, the worker runs them as one batch.
    The batch form must give what the calls one by one would; if it raises, the worker makes
    the calls one by one, so an error still reaches only the call that caused it."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.batch = batch  # type: ignore[attr-defined]
        return fn

    return mark


def _answer_of(fn: Callable[..., Any], args: tuple[Any, ...]) -> bytes:
    try:
        return pickle.dumps((True, fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # the caller decides; the worker goes on with the next request
        return _error_answer(exc)


def _answers(calls: list[tuple[Callable[..., Any], tuple[Any, ...]] | BaseException]) -> Iterator[bytes]:
    """The answers to ``calls`` in order, each as soon as it is ready; runs of the same
    batchable function go as one batch."""
    i = 0
    while i < len(calls):
        call = calls[i]
        if isinstance(call, BaseException):
            yield _error_answer(call)
            i += 1
            continue
        fn, args = call
        j = i + 1
        batch = getattr(fn, "batch", None)
        if batch is not None:
            while j < len(calls) and not isinstance(calls[j], BaseException) and calls[j][0] is fn:  # type: ignore[index]
                j += 1
        if j - i > 1:
            group = [c[1] for c in calls[i:j]]  # type: ignore[index]
            try:
                results = batch(group)  # type: ignore[misc]
                if len(results) != len(group):  # answers would go to the wrong callers
                    raise ValueError(f"{fn.__qualname__}.batch gave {len(results)} results for {len(group)} calls")
                out = [pickle.dumps((True, r), protocol=pickle.HIGHEST_PROTOCOL) for r in results]
            except BaseException:
                out = [_answer_of(fn, a) for a in group]
            yield from out
        else:
            yield _answer_of(fn, args)
        i = j


def _serve(
    requests: Any, answers: Any, name: str, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]
) -> None:
    """The worker's loop: answer each ``(function, args)`` request in order until end-of-file.

    It takes every request already waiting in the pipe (up to ``_MAX_BATCH``): a worker that has
    fallen behind the crawl runs the waiting calls of a :func:`batchable` function as one batch.
    """
    exit_with_parent(f"{name}-parent-watch")
    if initializer is not None:
        initializer(*initargs)
    end = False
    while not end:
        try:
            waiting = [requests.recv_bytes()]
        except EOFError:
            return
        size = len(waiting[0])
        while len(waiting) < _MAX_BATCH and size < _MAX_BATCH_BYTES and requests.poll(0):
            try:
                waiting.append(requests.recv_bytes())
            except EOFError:
                end = True  # answer what was read first
                break
            size += len(waiting[-1])
        calls: list[tuple[Callable[..., Any], tuple[Any, ...]] | BaseException] = []
        for data in waiting:
            try:
                calls.append(pickle.loads(data))
            except BaseException as exc:
                calls.append(exc)
        try:
            for out in _answers(calls):
                answers.send_bytes(out)
        except OSError:  # the crawl process closed the channel or is gone
            return


def _worker_main(requests: Any, answers_fd: int) -> None:
    """The worker process's side once :data:`_BOOT` has prepared it: the initializer, then
    :func:`_serve`."""
    from multiprocessing.connection import Connection

    name, initializer, initargs = pickle.loads(requests.recv_bytes())
    _serve(requests, Connection(answers_fd, readable=False), name, initializer, initargs)
    # Every request is answered and nothing is left to write: the interpreter's own teardown
    # (freeing the modules and the heap of a long crawl, a sixth of a second and more) would only
    # keep the crawl's close waiting for the process to end.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


# The worker's first lines, run with ``python -c`` and the two pipes' descriptors and the worker's
# name as arguments (the name shows in ps and top).  The first message is what multiprocessing's
# "spawn" sends its children (sys.path, the working directory, the main module); until it is read
# only the standard library is importable, since this package may live on a path only the crawl
# has (a Scrapyd egg).
_BOOT = (
    "import pickle, sys, multiprocessing.spawn\n"
    "from multiprocessing.connection import Connection\n"
    "requests, answers = Connection(int(sys.argv[1]), writable=False), int(sys.argv[2])\n"
    "multiprocessing.spawn.prepare(pickle.loads(requests.recv_bytes()))  # sets sys.argv too\n"
    "from bitext_spider.workers.channel import _worker_main\n"
    "_worker_main(requests, answers)\n"
)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _bigger_pipe(fd: int) -> None:
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_SIZE)


class WorkerChannel:
    """One worker process; :meth:`call` returns a future of the answer.  Calls are answered one at
    a time in the order they were made.  Only the event loop's thread may call, and a channel
    serves one event loop at a time (it moves to the loop of the latest call).

    When the worker dies every unanswered call fails with :class:`WorkerDied`, and so does every
    later one: the owner replaces the channel."""

    def __init__(
        self, name: str, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
    ) -> None:
        # A new interpreter, not a fork: the crawl process has threads.  Started with subprocess
        # rather than multiprocessing's "spawn", which would also start multiprocessing's
        # resource tracker, a process of 13 MB that nothing here uses.  The worker is prepared as
        # "spawn" prepares its children (the crawl's sys.path and working directory, its main
        # module importable), so functions of a script or a Scrapyd egg unpickle there as well.
        requests_r, self._wfd = os.pipe()
        self._rfd, answers_w = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, *subprocess._args_from_interpreter_flags(), "-c", _BOOT,  # type: ignore[attr-defined]
                 str(requests_r), str(answers_w), name],
                pass_fds=(requests_r, answers_w), stdin=subprocess.DEVNULL,
            )
        except BaseException:
            os.close(self._wfd)
            os.close(self._rfd)
            raise
        finally:  # the worker's ends
            os.close(requests_r)
            os.close(answers_w)
        self._closed = False
        self._pending: deque[asyncio.Future[Any]] = deque()
        self._out = bytearray()
        self._in = bytearray()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._dead: WorkerDied | None = None
        for fd in (self._wfd, self._rfd):
            _bigger_pipe(fd)
        setup = multiprocessing.spawn.get_preparation_data(name)
        setup.pop("authkey", None)  # for multiprocessing's own connections, which are not used
        try:
            self._write_setup(pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL))
            self._write_setup(pickle.dumps((name, initializer, initargs), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:  # it ended at once: its calls fail as a dead worker's do
            self._dead = WorkerDied(f"worker process {self.pid} did not start: {exc}")
        for fd in (self._wfd, self._rfd):
            os.set_blocking(fd, False)

    def _write_setup(self, data: bytes) -> None:
        """A message the worker reads before its first request (written whole, blocking: the
        worker reads it at once)."""
        view = memoryview(_frame(data))
        while view:
            n = os.write(self._wfd, view)
            view = view[n:]

    @property
    def pid(self) -> int | None:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self._dead is None

    @property
    def pending(self) -> int:
        """Calls not answered yet."""
        return len(self._pending)

    def call(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        if self._dead is not None:
            future.set_exception(self._dead)
            return future
        self._attach(loop)
        data = _frame(pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL))
        self._pending.append(future)
        self._write(data)
        return future

    # -- the loop's side --------------------------------------------------------------------------
    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop:
            return
        self._detach()
        self._loop = loop
        loop.add_reader(self._rfd, self._readable)
        if self._out:
            loop.add_writer(self._wfd, self._writable)

    def _detach(self) -> None:
        old, self._loop = self._loop, None
        if old is not None and not old.is_closed():
            old.remove_reader(self._rfd)
            old.remove_writer(self._wfd)

    def _write(self, data: bytes) -> None:
        if self._out:  # earlier bytes wait for the worker to read: keep the order
            self._out += data
            return
        try:
            n = os.write(self._wfd, data)
        except BlockingIOError:
            n = 0
        except OSError as exc:
            self._fail(f"cannot write to the worker: {exc}")
            return
        if n < len(data):
            self._out += memoryview(data)[n:]
            assert self._loop is not None
            self._loop.add_writer(self._wfd, self._writable)

    def _writable(self) -> None:
        try:
            n = os.write(self._wfd, self._out)
        except BlockingIOError:
            return
        except OSError as exc:
            self._fail(f"cannot write to the worker: {exc}")
            return
        del self._out[:n]
        if not self._out and self._loop is not None:
            self._loop.remove_writer(self._wfd)

    def _readable(self) -> None:
        try:
            chunk = os.read(self._rfd, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError as exc:
            self._fail(f"cannot read from the worker: {exc}")
            return
        if not chunk:
            self._fail(f"worker process {self.pid} ended (exit code {self.process.poll()})")
            return
        buf = self._in
        buf += chunk
        start = 0
        while len(buf) - start >= _SHORT.size:
            (n,) = _SHORT.unpack_from(buf, start)
            head = _SHORT.size
            if n == -1:
                if len(buf) - start < head + _LONG.size:
                    break
                (n,) = _LONG.unpack_from(buf, start + head)
                head += _LONG.size
            end = start + head + n
            if len(buf) < end:
                break
            self._answer(buf[start + head : end])
            start = end
        if start:
            del buf[:start]

    def _answer(self, data: bytearray) -> None:
        future = self._pending.popleft()
        try:
            ok, value = pickle.loads(data)
        except Exception as exc:
            ok, value = False, exc
        if future.done():  # cancelled: the caller stopped waiting (a timeout)
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def _fail(self, why: str) -> None:
        if self._dead is None:
            self._dead = WorkerDied(why)
        self._detach()
        while self._pending:
            future = self._pending.popleft()
            if not future.done():
                future.set_exception(self._dead)

    # -- ending ------------------------------------------------------------------------------------
    def _on_loop(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the loop's thread if another thread is closing the channel while the loop
        runs (the crawl's runtime closes in a thread): the loop owns the callbacks and futures."""
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running() or _running_loop() is loop:
            fn()
            return
        done = threading.Event()

        def run() -> None:
            try:
                fn()
            finally:
                done.set()

        try:
            loop.call_soon_threadsafe(run)
        except RuntimeError:  # the loop closed meanwhile: nothing runs on it any more
            fn()
            return
        done.wait(10)

    def kill(self) -> None:
        """Kill the worker now; unanswered calls fail."""
        with contextlib.suppress(OSError):
            self.process.kill()
        self._on_loop(lambda: self._fail(f"worker process {self.pid} killed"))
        self._close_pipes()
        self._reap(5)

    def close(self, timeout: float = 30.0) -> None:
        """Let the worker finish what it was sent (the pipe's end-of-file stops it), then reap it;
        unanswered calls fail.  Idempotent; any thread may call it."""
        self._on_loop(lambda: self._fail("worker channel closed"))
        self._close_pipes()
        if not self._reap(timeout):
            self.process.kill()
            self._reap(5)

    def _reap(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the worker to end; whether it has."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _close_pipes(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self._wfd)
            os.close(self._rfd)
