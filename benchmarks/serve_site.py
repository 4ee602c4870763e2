#!/usr/bin/env python3
"""Serve a test site on loopback like ../shared/bench/serve.py, plus pages addressed by their query.

    python benchmarks/serve_site.py SITE_DIR            # serves until interrupted
    python benchmarks/serve_site.py SITE_DIR --for 600  # stops by itself after 600 s

``hosts.tsv`` lines are ``<folder> TAB <base URL>``; only loopback addresses are served. A request
``PATH?QUERY`` is answered with the file named ``PATH?Q`` under the host's folder, ``Q`` being the
query's parameters sorted (:func:`query_file_name`), so ``/index.php?page=a&lang=fr`` and
``/index.php?lang=fr&page=a`` are one page; parameters no such file names are ignored, as a script
would (``/index.php?page=a&lang=fr&print=1`` is that page too), and without any such file the
whole query is, as serve.py does. ``content-types.tsv`` (file path TAB Content-Type) gives the type of files whose name says
nothing (``/content.asp?clang=3&id=7``). benchmarks/make_url_scheme_site.py writes such sites and
marks them with ``query-files.tsv``, which benchmarks/evaluate_site.py looks for to start this
server instead of serve.py.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import ipaddress
import os
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

CONTENT_TYPES_FILE = "content-types.tsv"
# The marker of a site whose pages are addressed by their query: linked URL TAB file path.
QUERY_FILES = "query-files.tsv"


def canonical_query(query: str) -> str:
    """The query's parameters in sorted order (empty ones dropped), as written in file names."""
    return "&".join(sorted(p for p in query.split("&") if p))


def query_file_name(path: str, query: str) -> str:
    """The file path (unquoted URL path) that serves ``path?query`` in any parameter order."""
    canon = canonical_query(query)
    if "/" in canon or "\\" in canon:
        raise ValueError(f"a query served from a file name cannot hold a path separator: {query!r}")
    return f"{unquote(path)}?{canon}" if canon else unquote(path)


def query_file(plain: str, query: str) -> str | None:
    """The file serving the query for file path ``plain``: the one named with all its parameters,
    else the one with the most of them and no other, else None."""
    canon = canonical_query(query)
    if not canon or "/" in canon or "\\" in canon:
        return None
    if os.path.isfile(f"{plain}?{canon}"):
        return f"{plain}?{canon}"
    directory, name = os.path.split(plain)
    wanted = set(canon.split("&"))
    best: tuple[int, str] | None = None
    try:
        entries = os.listdir(directory)
    except OSError:
        return None
    for entry in entries:
        if entry.startswith(f"{name}?"):
            params = set(entry[len(name) + 1:].split("&"))
            if params <= wanted and (best is None or len(params) > best[0]):
                best = len(params), entry
    return None if best is None else os.path.join(directory, best[1])


def resolve(docroot: Path, url: str) -> Path | None:
    """The file a request for ``url`` (path and query, or absolute) is answered with, else None."""
    parts = urlsplit(url)
    words = [w for w in unquote(parts.path).split("/") if w and w not in (".", "..")]
    plain = Path(docroot).joinpath(*words)
    named = query_file(str(plain), parts.query) if words else None
    if named is not None:
        return Path(named)
    if plain.is_dir():
        plain = plain / "index.html"  # what http.server serves for a directory (index.htm is not used here)
    return plain if plain.is_file() else None


def read_content_types(site: Path) -> dict[str, str]:
    path = site / CONTENT_TYPES_FILE
    if not path.is_file():
        return {}
    rows = (line.split("\t", 1) for line in path.read_text("utf-8").splitlines() if "\t" in line)
    return {p: t for p, t in rows}


class QueryHandler(http.server.SimpleHTTPRequestHandler):
    """serve.py's handler, plus files named after their query and the content-types sidecar."""

    content_types: dict[str, str] = {}

    def log_message(self, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        plain = super().translate_path(path)  # the query dropped, ".." and empty segments removed
        named = None if plain.endswith(os.sep) else query_file(plain, urlsplit(path).query)
        return named or plain

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        rel = "/" + os.path.relpath(os.fspath(path), self.directory).replace(os.sep, "/")
        return self.content_types.get(rel) or super().guess_type(path)


def serve(site: Path) -> list[http.server.ThreadingHTTPServer]:
    """Start one server per ``hosts.tsv`` line in daemon threads."""
    servers = []
    types = read_content_types(site)
    for line in (site / "hosts.tsv").read_text("utf-8").splitlines():
        if "\t" not in line:
            continue
        folder, base = (x.strip() for x in line.split("\t", 1))
        u = urlsplit(base)
        if not ipaddress.ip_address(u.hostname or "").is_loopback:
            raise SystemExit(f"refusing to serve on non-loopback address {u.hostname}")
        handler_class = type("SiteHandler", (QueryHandler,), {"content_types": types})
        handler = functools.partial(handler_class, directory=str(site / folder))
        srv = http.server.ThreadingHTTPServer((u.hostname, u.port or 80), handler)
        srv.daemon_threads = True
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        print(f"serving {site / folder} at {base}", flush=True)
    return servers


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path)
    ap.add_argument("--for", dest="seconds", type=float, default=None, help="stop after this many seconds")
    a = ap.parse_args(argv)
    servers = serve(a.site)
    try:
        if a.seconds is None:
            while True:
                time.sleep(3600)
        time.sleep(a.seconds)
    except KeyboardInterrupt:
        pass
    for s in servers:
        s.shutdown()
        s.server_close()


if __name__ == "__main__":
    main()
