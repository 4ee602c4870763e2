"""Read HTTP responses back from WARC files, in file order, as a crawl received them.

:func:`read_archive` yields one :class:`Archived` per HTTP ``response`` record that a spider can
take (status 2xx, body decoded) and one :class:`Passed` for every other record, with the reason
(counted as ``bitext/warc/skipped/<reason>``, or not at all for records that are no response):

- ``revisit``: a revisit record holds no payload, only a digest saying it equals an earlier
  capture.  Under the same URL that capture is the page (the first capture of a URL is the one
  taken); under another URL it is an exact copy of a page, which is never paired; so it is skipped.
- ``truncated``: ``WARC-Truncated`` (Common Crawl cuts payloads at 1 MiB): a cut page's size and
  tag sequence mislead the size and structure filters, so it is skipped unless ``keep_truncated``.
- ``status``: not 2xx (a live crawl's spider never sees those either); ``redirect``: a 3xx with a
  ``Location``, whose target (:attr:`Passed.location`) a later record holds.
- ``undecodable``: a ``Content-Encoding`` the reader cannot decode, or a body that fails to decode.
- ``not_http``: a response record of another scheme (``dns:``, ``ftp:``).

Request, metadata, warcinfo and resource records are passed with no reason.  Chunked transfer
encoding and gzip/deflate/brotli content encoding are decoded (warcio's HTTP parsing); the
framing headers are dropped, as Scrapy's download handler and compression middleware drop them.
WET files (text ``conversion`` records) and WAT files (JSON ``metadata``) hold no HTML: they are
rejected with :class:`WarcInputError`, as are files that are missing, not WARC (or ARC), or cut.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timezone
from pathlib import Path
from typing import IO, Any
from urllib.parse import urljoin

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import BufferedReader
from warcio.exceptions import ArchiveLoadFailed
from warcio.timeutils import iso_date_to_datetime

from bitext_spider.user_errors import UserError

_DROPPED = ("transfer-encoding", "content-length")
# Records read before a file is taken for a WARC of responses (the check before a run).
_CHECK_RECORDS = 20


class WarcInputError(UserError):
    """A WARC file that cannot be mined: missing, not a WARC of responses, or cut short."""


@dataclass
class Archived:
    """One HTTP response as the spider receives it."""

    url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes = field(repr=False)
    fetched_at: float  # WARC-Date, seconds since the epoch
    truncated: bool = False


@dataclass(frozen=True)
class Passed:
    """A record that gives no page: why (empty for records that are no response), and for a
    redirect its target."""

    reason: str
    url: str = ""
    location: str | None = None


def _date(value: str | None) -> float:
    if not value:
        return 0.0
    try:
        return iso_date_to_datetime(value).replace(tzinfo=timezone.utc).timestamp()
    except (ValueError, TypeError):
        return 0.0


def _open(path: Path) -> IO[bytes]:
    if not path.is_file():
        raise WarcInputError(f"no WARC file at {path}")
    try:
        return open(path, "rb")  # noqa: SIM115 (closed by the caller)
    except OSError as exc:
        raise WarcInputError(f"cannot read {path}: {exc.strerror or exc}") from exc


class _Records(ArchiveIterator):
    """warcio's iterator, noting whether the file's last gzip member was whole: warcio ends a
    file cut inside a member quietly, as if it were complete."""

    cut = False

    def close(self) -> None:
        decompressor = self.reader.decompressor if self.reader is not None else None
        if decompressor is not None and getattr(decompressor, "eof", True) is False:
            self.cut = True
        super().close()


def _records(fh: IO[bytes]) -> _Records:
    # arc2warc: ARC files (the format before WARC) are read as WARC response records.
    return _Records(fh, arc2warc=True)


def _whole(records: _Records, record: Any) -> bool:
    """Read the record to its end: whether it has every byte its Content-Length announced."""
    records.read_to_end()
    return getattr(record.raw_stream, "limit", 0) <= 0


def _other_format(rec_type: str | None, content_type: str | None) -> str | None:
    if rec_type == "conversion":
        return "a WET file (extracted text, no HTML): mine the WARC files of the same crawl"
    if rec_type == "metadata" and "json" in (content_type or ""):
        return "a WAT file (JSON metadata, no HTML): mine the WARC files of the same crawl"
    return None


def check_archive(path: str | Path) -> None:
    """Raise :class:`WarcInputError` unless ``path`` starts like a WARC (or ARC) file of responses.

    Reads a few records only: a file cut further on is found when it is mined.
    """
    path = Path(path)
    with _open(path) as fh:
        seen = 0
        records = _records(fh)
        try:
            for record in records:
                problem = _other_format(record.rec_type, record.content_type)
                if problem:
                    raise WarcInputError(f"{path} is {problem}")
                seen += 1
                if record.rec_type in ("response", "revisit", "request") or seen >= _CHECK_RECORDS:
                    return
        except WarcInputError:
            raise
        except (ArchiveLoadFailed, EOFError, OSError, ValueError, zlib.error) as exc:
            raise WarcInputError(f"{path} is not a readable WARC file: {_first_line(exc)}") from exc
        except Exception as exc:  # warcio's parsers raise bare exceptions on malformed headers
            raise WarcInputError(f"{path} is not a readable WARC file: {_first_line(exc)}") from exc
        if seen == 0:
            raise WarcInputError(f"{path} holds no WARC record (empty or not a WARC file)")
        if records.cut:
            raise WarcInputError(f"{path} is cut short after {seen} records")


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return (text[:200] + "...") if len(text) > 200 else text or type(exc).__name__


def _response(record: Any, url: str, keep_truncated: bool) -> Archived | Passed:
    http = record.http_headers
    try:
        status = int(http.get_statuscode())
    except (TypeError, ValueError, AttributeError):
        return Passed("status", url)
    if 300 <= status < 400:
        location = http.get_header("Location")
        return Passed("redirect", url, urljoin(url, location.strip()) if location else None)
    if not 200 <= status < 300:
        return Passed("status", url)
    truncated = bool(record.rec_headers.get_header("WARC-Truncated"))
    if truncated and not keep_truncated:
        return Passed("truncated", url)
    encoding = (http.get_header("Content-Encoding") or "").strip().lower()
    decoded = encoding in BufferedReader.get_supported_decompressors()
    if encoding and encoding != "identity" and not decoded:
        return Passed("undecodable", url)
    try:
        body = record.content_stream().read()
    except Exception:  # a corrupt gzip/brotli body or chunk framing: warcio raises several kinds
        return Passed("undecodable", url)
    dropped = _DROPPED + (("content-encoding",) if decoded else ())
    headers = [(k, v) for k, v in http.headers if k.lower() not in dropped]
    return Archived(url, status, headers, body, _date(record.rec_headers.get_header("WARC-Date")), truncated)


def read_archive(path: str | Path, keep_truncated: bool = False) -> Iterator[Archived | Passed]:
    """Every record of one WARC (or ARC) file, in file order.

    Raises :class:`WarcInputError` when the file cannot be read to its end; what was yielded
    before stays valid.
    """
    path = Path(path)
    with _open(path) as fh:
        records = _records(fh)
        try:
            for record in records:
                problem = _other_format(record.rec_type, record.content_type)
                if problem:
                    raise WarcInputError(f"{path} is {problem}")
                url = record.rec_headers.get_header("WARC-Target-URI") or ""
                out: Archived | Passed
                if record.rec_type == "revisit":
                    out = Passed("revisit", url)
                elif record.rec_type != "response":
                    out = Passed("")
                elif not url.lower().startswith(("http:", "https:")) or record.http_headers is None:
                    out = Passed("not_http", url)
                else:
                    out = _response(record, url, keep_truncated)
                # Only whole records: the one a cut ends inside is not mined.
                if not _whole(records, record):
                    raise WarcInputError(f"{path} is cut short inside the record of {url or record.rec_type}")
                yield out
        except WarcInputError:
            raise
        except Exception as exc:  # a cut gzip member, a malformed record: warcio raises many kinds
            offset = getattr(records, "offset", None)
            where = f" near byte {offset}" if offset is not None else ""
            raise WarcInputError(f"{path} cannot be read past a point{where}: {_first_line(exc)}") from exc
        if records.cut:
            raise WarcInputError(f"{path} is cut short: its last gzip member ends early")

