"""Serve a generated test site on 127.0.0.1, for the demo, the end-to-end tests and benchmarks.

A site folder holds ``www/`` (the document root), ``hosts.tsv`` (``www TAB base URL``) and
optionally ``content-types.tsv``, a sidecar mapping URL paths to the exact Content-Type to send
(how a site declares its charset "only in the HTTP header"). Other ``.html`` files go out as plain
``text/html`` with no charset parameter, so a crawler has to find the encoding in the page.

Because the gold standard holds absolute URLs, the port is part of the site: pick one with
:func:`free_port`, generate the site for ``http://127.0.0.1:<port>``, then serve it; by default
:func:`serve_site` reuses the port written in ``hosts.tsv``.

For robustness tests a server can also misbehave on purpose, each behaviour off by default:
``/loop`` redirects to itself, ``/slow`` answers after ``slow_seconds``, ``/huge.html`` is a 5 MB
page and ``/garbage.html`` is random bytes labelled ``text/html``.  For benchmarks, ``latency``
holds every answer back that long, as a server across a network would.

    python -m bitext_spider.demo.loopback_server SITE_DIR [--port N] [--for SECONDS] [--latency SECONDS]
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import http.server
import ipaddress
import logging
import os
import random
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path
from urllib.parse import unquote, urlsplit

LOOPBACK = "127.0.0.1"
# The sidecar a generated site may carry: URL path TAB Content-Type, for pages served with a type
# their file name does not give.
CONTENT_TYPES_FILE = "content-types.tsv"
HUGE_PAGE_BYTES = 5 * 1024 * 1024
logger = logging.getLogger(__name__)


def _ephemeral_range() -> tuple[int, int]:
    """The kernel's range for automatically assigned ports (Linux default when unknown)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on, to generate and then serve a site on.

    Ports are drawn at random *below* the kernel's ephemeral range: a port the kernel handed out
    (bind to port 0) could be given again to any outgoing connection before the server binds it,
    and random draws keep concurrent test runs from picking the same one.
    """
    low, high = _ephemeral_range()
    start, stop = (20000, low - 1) if low > 21000 else (high + 1, 65535)
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randint(start, stop)
        if _bindable(port):
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:  # crowded machine: let the kernel choose
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def read_content_types(site_dir: Path) -> dict[str, str]:
    """The sidecar ``content-types.tsv`` of a site (URL path -> Content-Type), or ``{}``."""
    path = Path(site_dir) / CONTENT_TYPES_FILE
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text("utf-8").splitlines():
        if "\t" in line:
            url_path, ctype = line.split("\t", 1)
            out[url_path] = ctype
    return out


def _site_port(site_dir: Path) -> int:
    """The port of the base URL in ``hosts.tsv``, 0 when there is none."""
    hosts = Path(site_dir) / "hosts.tsv"
    if not hosts.is_file():
        return 0
    for line in hosts.read_text("utf-8").splitlines():
        if "\t" not in line:
            continue
        parts = urlsplit(line.split("\t", 1)[1].strip())
        host = parts.hostname or ""
        if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"{hosts}: refusing to serve a non-loopback site ({host})")
        return parts.port or 80
    return 0


class _SiteServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server carrying the site's settings for its handlers."""

    daemon_threads = True
    allow_reuse_address = True  # a port in TIME_WAIT from a previous run is still usable
    allow_reuse_port = False  # but never share a port with another live server

    docroot: str
    content_types: Mapping[str, str]
    redirect_loop: bool
    slow_seconds: float | None
    latency: float = 0.0  # servers built without LoopbackServer (tests) answer at once
    huge_page: bytes | None
    garbage_page: bytes | None
    stopping: threading.Event

    def handle_error(self, request, client_address) -> None:
        # Clients hanging up (timeouts in robustness tests) are expected; anything else is logged quietly.
        logger.debug("error while serving %s", client_address, exc_info=True)


class _Handler(http.server.SimpleHTTPRequestHandler):
    server: _SiteServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if not self._held_back() and not self._special(head=False):
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self._held_back() and not self._special(head=True):
            super().do_HEAD()

    def _held_back(self) -> bool:
        """Wait the server's latency; True when it shuts down meanwhile (the request is dropped)."""
        return self.server.latency > 0 and self.server.stopping.wait(self.server.latency)

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        rel = "/" + os.path.relpath(os.fspath(path), self.server.docroot).replace(os.sep, "/")
        return self.server.content_types.get(rel) or super().guess_type(path)

    def _special(self, head: bool) -> bool:
        """Answer the enabled misbehaving paths; False for ordinary requests."""
        path = unquote(urlsplit(self.path).path)
        srv = self.server
        if path == "/loop" and srv.redirect_loop:
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        if path == "/slow" and srv.slow_seconds is not None:
            if srv.stopping.wait(srv.slow_seconds):
                return True  # server shutting down: just drop the request
            self._send(b"<!DOCTYPE html><html><body><p>Finally.</p></body></html>", "text/html", head)
            return True
        if path == "/huge.html" and srv.huge_page is not None:
            self._send(srv.huge_page, "text/html", head)
            return True
        if path == "/garbage.html" and srv.garbage_page is not None:
            self._send(srv.garbage_page, "text/html", head)
            return True
        return False

    def _send(self, body: bytes, ctype: str, head: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)


def _huge_page(size: int) -> bytes:
    paragraph = (
        b"<p>The museum offers a guided tour of the old town every morning, and the tourist office "
        b"sells the tickets near the station.</p>\n"
    )
    head = b'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Huge page</title></head>\n<body>\n'
    tail = b"</body>\n</html>\n"
    count = max(1, (size - len(head) - len(tail)) // len(paragraph) + 1)
    return head + paragraph * count + tail


class LoopbackServer:
    """A site served on 127.0.0.1 in a background thread; also a context manager.

    ``port=0`` takes the port of ``hosts.tsv`` (so the gold URLs match) or, without one, any free
    port. The test-only behaviours are enabled by ``redirect_loop``, ``slow_seconds``,
    ``huge_page`` and ``garbage_page``.
    """

    def __init__(
        self,
        site_dir: Path,
        port: int = 0,
        *,
        redirect_loop: bool = False,
        slow_seconds: float | None = None,
        huge_page: bool = False,
        garbage_page: bool = False,
        huge_size: int = HUGE_PAGE_BYTES,
        latency: float = 0.0,
    ) -> None:
        self.site_dir = Path(site_dir)
        www = self.site_dir / "www"
        self.docroot = www if www.is_dir() else self.site_dir
        self.port = port or _site_port(self.site_dir)
        self.redirect_loop = redirect_loop
        self.slow_seconds = slow_seconds
        self.latency = latency
        self.huge_page = _huge_page(huge_size) if huge_page else None
        self.garbage_page = random.Random(0).randbytes(65536) if garbage_page else None
        self._server: _SiteServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` once started."""
        if self._server is None:
            raise RuntimeError("server not started")
        return f"http://{LOOPBACK}:{self._server.server_address[1]}"

    def start(self) -> str:
        """Bind, start serving in a daemon thread, and return the base URL."""
        handler = partial(_Handler, directory=str(self.docroot))
        try:
            srv = _SiteServer((LOOPBACK, self.port), handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise OSError(exc.errno, f"port {self.port} on {LOOPBACK} is already in use") from exc
            raise
        srv.docroot = str(self.docroot)
        srv.content_types = read_content_types(self.site_dir)
        srv.redirect_loop = self.redirect_loop
        srv.slow_seconds = self.slow_seconds
        srv.latency = self.latency
        srv.huge_page = self.huge_page
        srv.garbage_page = self.garbage_page
        srv.stopping = threading.Event()
        self._server = srv
        self._thread = threading.Thread(
            target=partial(srv.serve_forever, poll_interval=0.05), name=f"loopback:{self.port}", daemon=True
        )
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving and release the port; slow requests are cut short."""
        if self._server is None:
            return
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def serve_site(
    site_dir: Path,
    port: int = 0,
    *,
    redirect_loop: bool = False,
    slow_seconds: float | None = None,
    huge_page: bool = False,
    garbage_page: bool = False,
) -> Iterator[str]:
    """Serve ``site_dir`` on 127.0.0.1 for the duration of a ``with`` block; yields the base URL."""
    server = LoopbackServer(
        site_dir,
        port,
        redirect_loop=redirect_loop,
        slow_seconds=slow_seconds,
        huge_page=huge_page,
        garbage_page=garbage_page,
    )
    base_url = server.start()
    try:
        yield base_url
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    """Command line: serve a site until interrupted or for ``--for`` seconds."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site_dir", type=Path)
    ap.add_argument("--port", type=int, default=0, help="default: the port in hosts.tsv, else a free one")
    ap.add_argument("--for", dest="seconds", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--loop", action="store_true", help="enable /loop (redirects to itself)")
    ap.add_argument("--slow", type=float, default=None, metavar="SECONDS", help="enable /slow")
    ap.add_argument("--huge", action="store_true", help="enable /huge.html (5 MB)")
    ap.add_argument("--garbage", action="store_true", help="enable /garbage.html (binary as text/html)")
    ap.add_argument("--latency", type=float, default=0.0, metavar="SECONDS",
                    help="hold every answer back this long (a server across a network)")
    a = ap.parse_args(argv)
    server = LoopbackServer(
        a.site_dir,
        a.port,
        redirect_loop=a.loop,
        slow_seconds=a.slow,
        huge_page=a.huge,
        garbage_page=a.garbage,
        latency=a.latency,
    )
    print(f"serving {server.docroot} at {server.start()}", flush=True)
    try:
        if a.seconds is None:
            while True:
                time.sleep(3600)
        time.sleep(a.seconds)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
