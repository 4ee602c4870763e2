"""Size-rotated WARC files, written by a thread of their own.

Each HTTP exchange becomes a ``response`` record (the status line, the headers and the body as
downloaded) followed by its ``request`` record (``WARC-Concurrent-To`` the response), both built
with warcio and each compressed as its own gzip member, as WARC readers expect.  Every file starts
with a ``warcinfo`` record.  ``PATH.warc.gz`` names a series: ``PATH-00000.warc.gz``,
``PATH-00001.warc.gz``, ...; a file is closed once it holds ``max_bytes`` and the next exchange
opens the next one (an exchange's two records are never split).  Numbering continues after the
files already there, so a resumed crawl adds files and never overwrites one.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from http import HTTPStatus
from io import BytesIO
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from warcio.statusandheaders import StatusAndHeaders
from warcio.timeutils import datetime_to_iso_date
from warcio.warcwriter import WARCWriter

logger = logging.getLogger(__name__)

SUFFIXES = (".warc.gz", ".warc")
WARC_VERSION = "WARC/1.1"
# zlib's default level: the crawl's second core is shared with the matching, and level 9 (warcio's)
# costs about three times the CPU for a file 2-3% smaller.
GZIP_LEVEL = 6
# Framing the HTTP client already undid: the archived body is the message body after de-chunking,
# so the record says its length instead (Twisted keeps neither header in a response).
_FRAMING = ("transfer-encoding", "content-length")


@dataclass(frozen=True)
class Exchange:
    """One downloaded response and the request that asked for it, as they are archived."""

    url: str
    date: datetime  # when the response arrived (UTC)
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    method: str = "GET"
    request_headers: tuple[tuple[str, str], ...] = ()
    request_body: bytes = b""
    protocol: str = "HTTP/1.1"
    ip_address: str | None = None
    truncated: str | None = None  # WARC-Truncated reason: the body is incomplete


def series(output: str) -> tuple[Path, str]:
    """``dir/crawl.warc.gz`` -> (``dir/crawl``, ``.warc.gz``): the stem the file numbers follow."""
    for suffix in SUFFIXES:
        if output.endswith(suffix):
            return Path(output[: -len(suffix)]), suffix
    raise ValueError(f"not a WARC output path: {output!r}")


def file_path(stem: Path, suffix: str, number: int) -> Path:
    return stem.with_name(f"{stem.name}-{number:05d}{suffix}")


def first_free_number(stem: Path, suffix: str) -> int:
    """One more than the highest number of the series' existing files (0 when there are none)."""
    pattern = re.compile(re.escape(stem.name) + r"-(\d{5,})" + re.escape(suffix) + "$")
    numbers = [int(m.group(1)) for p in stem.parent.glob(f"{stem.name}-*{suffix}") if (m := pattern.match(p.name))]
    return max(numbers, default=-1) + 1


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _http_protocol(protocol: str | None) -> str:
    if not protocol:
        return "HTTP/1.1"
    return "HTTP/2" if protocol.lower() in ("h2", "http/2", "http/2.0") else protocol.upper()


class _GzipMember:
    """A file-like sink that compresses everything written between two ``flush()`` calls as one
    gzip member (a record, for warcio's writer)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self._zip = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, zlib.MAX_WBITS + 16)

    def write(self, data: bytes) -> None:
        self.out.write(self._zip.compress(data))

    def flush(self) -> None:
        self.out.write(self._zip.flush())
        self._zip = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, zlib.MAX_WBITS + 16)


class ArchiveFiles:
    """Writes exchanges to the rotated files of one series (not thread-safe: one writer)."""

    def __init__(self, output: str, max_bytes: int, info: Mapping[str, str] | None = None) -> None:
        self.stem, self.suffix = series(output)
        self.max_bytes = max_bytes
        self.info = dict(info or {})
        self.gzip = self.suffix.endswith(".gz")
        self.paths: list[Path] = []
        self.bytes_written = 0  # in closed files and the open one
        self._file: IO[bytes] | None = None
        self._sink: Any = None
        self._writer: WARCWriter | None = None
        self._next = 0

    def write(self, exchange: Exchange) -> int:
        """Archive one exchange; returns the bytes its records took."""
        if self._file is None:
            self._open()
        assert self._file is not None and self._writer is not None
        start = self._file.tell()
        response, request = self._records(exchange)
        self._writer.write_request_response_pair(request, response)
        end = self._file.tell()
        self.bytes_written += end - start
        if end >= self.max_bytes:
            self.close()
        return end - start

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = self._writer = self._sink = None

    def _open(self) -> None:
        if not self.paths:
            self.stem.parent.mkdir(parents=True, exist_ok=True)
            self._next = first_free_number(self.stem, self.suffix)
        while True:
            path = file_path(self.stem, self.suffix, self._next)
            self._next += 1
            try:
                # "x": a file that appeared meanwhile (another crawl on the same series) is not
                # overwritten; the next number is taken.
                self._file = open(path, "xb")  # noqa: SIM115 (kept open across calls, closed by close())
                break
            except FileExistsError:
                continue
        self._sink = _GzipMember(self._file) if self.gzip else self._file
        # warcio's own gzip is level 9; records are compressed here, one gzip member each.
        self._writer = WARCWriter(self._sink, gzip=False, warc_version=WARC_VERSION)
        self.paths.append(path)
        start = self._file.tell()
        self._writer.write_record(self._writer.create_warcinfo_record(path.name, self.info))
        self.bytes_written += self._file.tell() - start

    def _records(self, ex: Exchange) -> tuple[Any, Any]:
        assert self._writer is not None
        date = datetime_to_iso_date(ex.date.astimezone(timezone.utc).replace(tzinfo=None), use_micros=True)
        headers = [(k, v) for k, v in ex.headers if k.lower() not in _FRAMING]
        headers.append(("Content-Length", str(len(ex.body))))
        http = StatusAndHeaders(f"{ex.status} {_reason(ex.status)}".rstrip(), headers,
                                protocol=_http_protocol(ex.protocol))
        warc_headers = {"WARC-Date": date}
        if ex.ip_address:
            warc_headers["WARC-IP-Address"] = ex.ip_address
        if ex.truncated:
            warc_headers["WARC-Truncated"] = ex.truncated
        response = self._writer.create_warc_record(ex.url, "response", payload=BytesIO(ex.body),
                                                   length=len(ex.body), http_headers=http,
                                                   warc_headers_dict=warc_headers)
        parts = urlsplit(ex.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        request_headers = [("Host", parts.netloc), *((k, v) for k, v in ex.request_headers if k.lower() != "host")]
        if ex.request_body:
            request_headers.append(("Content-Length", str(len(ex.request_body))))
        request_http = StatusAndHeaders(f"{ex.method} {target} HTTP/1.1", request_headers, is_http_request=True)
        request = self._writer.create_warc_record(ex.url, "request", payload=BytesIO(ex.request_body),
                                                  length=len(ex.request_body), http_headers=request_http,
                                                  warc_headers_dict={"WARC-Date": date})
        return response, request


_STOP = object()


class BackgroundArchive:
    """:class:`ArchiveFiles` behind a queue and a thread: ``put`` never waits for the disk.

    A write that fails (a full disk, a directory that cannot be written) stops the archive: the
    error is logged once, and that exchange and every later one are counted as lost.
    """

    def __init__(self, files: ArchiveFiles, on_written: Callable[[int], None] | None = None) -> None:
        self.files = files
        self.on_written = on_written
        self.written = 0
        self.lost = 0
        self.error: BaseException | None = None
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="bitext-warc-writer", daemon=True)
        self._thread.start()

    def put(self, exchange: Exchange) -> None:
        self._queue.put(exchange)

    @property
    def backlog(self) -> int:
        return self._queue.qsize()

    def close(self, timeout: float | None = None) -> None:
        """Write what is queued, close the open file and end the thread."""
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                break
            if self.error is not None:
                self.lost += 1
                continue
            try:
                size = self.files.write(item)
            except Exception as exc:  # the archive is broken from here on: say so once
                self.error = exc
                self.lost += 1
                logger.error("WARC output failed at %s, no more responses are archived: %s", item.url, exc)
                continue
            self.written += 1
            if self.on_written is not None:
                self.on_written(size)
        try:
            self.files.close()
        except OSError as exc:
            self.error = self.error or exc
            logger.error("closing the WARC output failed: %s", exc)
