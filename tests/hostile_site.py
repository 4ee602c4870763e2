"""A generated "hostile web" site served on 127.0.0.1, for the end-to-end robustness test.

The static part is a small, genuinely bilingual site (:func:`bitext_spider.demo.site.generate_site`)
whose ``gold.tsv`` holds the only pairs a crawler should find. Everything else is served on the fly
and linked from the root page, the way the worst of the open web looks to a crawler:

* link traps that never end: a calendar (``/calendar/YYYY-MM-DD``, every date exists, with view and
  session-id variants), a faceted search (``/search?color=..&size=..&sort=..&page=..``) and a
  relative link that nests itself (``/loop/a/a/a/...``);
* text-less template pages that look like translations: ``/en/item/N`` and ``/fr/item/N`` carry the
  same text ("Item N", "No. N") and point at each other with hreflang links;
* bad answers: a gzip bomb, a 15 MB page, 300,000 tags, 60,000 nested elements, binary bytes as
  ``text/html``, a bogus charset, a redirect loop, an off-site redirect, ``javascript:`` and
  ``mailto:`` links, a 9,000-character URL, a page slower than ``DOWNLOAD_TIMEOUT``, a page failing
  once then answering, pages that always fail with 5xx, and a billion-laughs sitemap announced in
  robots.txt (which allows everything).

The server counts requests per route (:meth:`HostileServer.requests`), so a test can bound how much
of a trap a crawler fetched.

    python tests/hostile_site.py DIR [--port N]    # build and serve until interrupted
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html
import random
import re
import secrets
import threading
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from bitext_spider.demo.loopback_server import (
    LOOPBACK,
    LoopbackServer,
    _Handler,
    _SiteServer,
    free_port,
    read_content_types,
)
from bitext_spider.demo.site import generate_site

TRAP_PREFIXES = ("/calendar/", "/search", "/loop/")
ITEM_LANGS = ("en", "fr")
ITEM_PREFIXES = tuple(f"/{lang}/item/" for lang in ITEM_LANGS)
ITEMS = 400
CALENDAR_START = date(2024, 3, 5)
FAR_DAYS = 400
COLORS = ("red", "blue", "green", "black", "white", "yellow")
SIZES = ("xs", "s", "m", "l", "xl")
SORTS = ("price", "-price", "name", "newest")

BOMB_BYTES = 1 << 30  # decompressed; about 1 MB on the wire
HUGE_BYTES = 15 * 1024 * 1024  # under the project's DOWNLOAD_MAXSIZE (16 MB), over its WARNSIZE
MANY_TAGS = 300_000
NESTING = 60_000
LONG_URL_CHARS = 9_000
SLOW_SECONDS = 40.0  # the project's DOWNLOAD_TIMEOUT is 30 s
BOGUS_CHARSET = "x-bogus-42"
ERROR_CODES = (500, 501, 502, 503, 504)
OFFSITE = "http://example.invalid/"
_CHUNK = 64 * 1024

# Exact paths of the single hostile pages, and the prefixes of the generated families.
PAGES = (
    "/bomb.html", "/huge.html", "/many-tags.html", "/deep.html", "/binary.html", "/bogus-charset.html",
    "/redir-loop", "/offsite-redirect", "/slow", "/flaky",
)
PREFIXES = (*TRAP_PREFIXES, *ITEM_PREFIXES, "/long/", "/error/")


@dataclass(frozen=True)
class HostileSite:
    """What :func:`build_hostile_site` wrote: the gold pairs of the genuine part and where to start."""

    root: Path
    base_url: str
    port: int
    gold: frozenset[frozenset[str]]
    seeds: Path
    trap_prefixes: tuple[str, ...] = TRAP_PREFIXES
    item_prefixes: tuple[str, ...] = ITEM_PREFIXES

    def url(self, path: str) -> str:
        return self.base_url + path

    def serve(self) -> HostileServer:
        """A server for this site (not started; use it as a context manager)."""
        return HostileServer(self.root, self.port)


# --------------------------------------------------------------------------------------------------
# The static part


def _read_gold(path: Path) -> frozenset[frozenset[str]]:
    pairs = set()
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            _lang1, url1, _lang2, url2 = line.split("\t")
            pairs.add(frozenset((url1, url2)))
    return frozenset(pairs)


def _long_path(base_url: str) -> str:
    return "/long/" + "x" * (LONG_URL_CHARS - len(base_url) - len("/long/"))


def _hostile_links(base_url: str) -> str:
    links = [
        (f"/calendar/{CALENDAR_START.isoformat()}", "Calendar"),
        ("/search?color=red", "Shop by colour"),
        ("/loop/a/", "Archive"),
        *((prefix, f"Catalogue ({prefix[1:3]})") for prefix in ITEM_PREFIXES),
        *((path, path.strip("/").replace("-", " ").removesuffix(".html")) for path in PAGES),
        *((f"/error/{code}", f"Status {code}") for code in ERROR_CODES),
        (_long_path(base_url), "A long address"),
        ("javascript:void(window.open('/calendar/'))", "Pop-up calendar"),
        ("mailto:webmaster@example.invalid", "Write to us"),
    ]
    items = "".join(f'<li><a href="{html.escape(href)}">{html.escape(text)}</a></li>' for href, text in links)
    return f'<ul class="more">{items}</ul>\n'


def _insert_before_body_end(page: Path, fragment: str) -> None:
    text = page.read_text("utf-8")
    head, sep, tail = text.rpartition("</body>")
    if not sep:
        raise ValueError(f"{page} has no </body>")
    page.write_text(head + fragment + sep + tail, "utf-8")


def _robots(base_url: str) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {base_url}/sitemap.xml\n"


def _billion_laughs_sitemap(urls: list[str]) -> str:
    """A valid sitemap whose DTD expands ``&lol9;`` to 10**9 "lol"s (3 GB) if a parser lets it.

    The bomb comes after the genuine URLs: libxml2 gives up at the bomb, and a crawler that
    survives it still gets the URLs before it."""
    entities = ['<!ENTITY lol "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10)
    ]
    locs = "".join(f"<url><loc>{html.escape(u)}</loc></url>\n" for u in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE urlset [\n' + "\n".join(entities) + "\n]>\n"
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{locs}<url><loc>&lol9;</loc></url>\n</urlset>\n"
    )


def build_hostile_site(root: Path, port: int, seed: int = 11) -> HostileSite:
    """Write the static part of the site under ``root`` for ``http://127.0.0.1:<port>``."""
    root = Path(root)
    base_url = f"http://{LOOPBACK}:{port}"
    info = generate_site(root, base_url=base_url, n_docs=12, langs=ITEM_LANGS, seed=seed, extras=False)
    # The root page is the seed; the junk catalogues also hang off each language's real home page,
    # at the same depth as the genuine documents.
    _insert_before_body_end(info.www / "index.html", _hostile_links(base_url))
    for lang, prefix in zip(ITEM_LANGS, ITEM_PREFIXES, strict=True):
        _insert_before_body_end(info.www / lang / "index.html", f'<p><a href="{prefix}">Catalogue</a></p>\n')
    (info.www / "robots.txt").write_text(_robots(base_url), "utf-8")
    (info.www / "sitemap.xml").write_text(_billion_laughs_sitemap(sorted(info.home_pages.values())), "utf-8")
    return HostileSite(root=root, base_url=base_url, port=port, gold=_read_gold(info.gold_path),
                       seeds=info.seeds_path)


# --------------------------------------------------------------------------------------------------
# Generated bodies, built once per process


@functools.cache
def gzip_bomb() -> bytes:
    """``BOMB_BYTES`` zero bytes as one gzip member (level 9: about 1 MB)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(4 << 20)
    parts = [comp.compress(zeros) for _ in range(BOMB_BYTES // len(zeros))]
    parts.append(comp.flush())
    return b"".join(parts)


def _html(title: str, body: str, lang: str = "en", head: str = "") -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n{head}</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


@functools.cache
def huge_page() -> bytes:
    paragraph = (
        "<p>The harbour authority publishes the tide tables every week, and the ferry timetable "
        "changes with the season, so travellers should check both before leaving.</p>\n"
    )
    shell = _html("Tide tables", "{}").encode()
    count = (HUGE_BYTES - len(shell)) // len(paragraph)
    return _html("Tide tables", paragraph * count).encode()


@functools.cache
def many_tags_page() -> bytes:
    return _html("Price list", "<p>" + "<b>9</b>" * MANY_TAGS + "</p>").encode()


@functools.cache
def deep_page() -> bytes:
    return _html("Nested", "<div>" * NESTING + "<p>At the bottom.</p>" + "</div>" * NESTING).encode()


@functools.cache
def binary_body() -> bytes:
    return random.Random(42).randbytes(256 * 1024)


def bogus_charset_page() -> bytes:
    text = (
        "<h1>Opening hours</h1>\n<p>The town hall is open from Monday to Friday, and the caf\xe9 in its "
        "courtyard stays open until late on market days.</p>"
    )
    page = _html("Opening hours", text).replace('charset="utf-8"', f'charset="{BOGUS_CHARSET}"')
    return page.encode("latin-1")


def calendar_page(day: date) -> str:
    links = []
    for delta, label in ((1, "Next day"), (-1, "Previous day"), (FAR_DAYS, "Same time next year")):
        # The ends of the calendar (years 1 and 9999) still answer, with fewer links.
        with contextlib.suppress(OverflowError):
            links.append((f"/calendar/{(day + timedelta(days=delta)).isoformat()}", label))
    here = f"/calendar/{day.isoformat()}"
    links += [(f"{here}?view=week", "Week"), (f"{here}?view=month", "Month"),
              (f"{here}?sid={secrets.token_hex(8)}", "Refresh")]
    nav = "".join(f'<li><a href="{html.escape(h)}">{t}</a></li>' for h, t in links)
    body = f"<h1>Events on {day.isoformat()}</h1>\n<p>No events.</p>\n<ul>{nav}</ul>"
    return _html(f"Calendar {day.isoformat()}", body)


def search_page(query: str) -> str:
    params = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "page"]
    pages = [v for k, v in parse_qsl(query) if k == "page"]
    page = int(pages[-1]) if pages and pages[-1].isdigit() else 1
    links = []
    for color in COLORS:  # facets toggle and accumulate, in the order they were clicked
        pair = ("color", color)
        links.append([p for p in params if p != pair] if pair in params else [*params, pair])
    for key, values in (("size", SIZES), ("sort", SORTS)):
        links += [[*(p for p in params if p[0] != key), (key, v)] for v in values]
    links.append([*params, ("page", str(page + 1))])
    nav = "".join(f'<li><a href="/search?{html.escape(urlencode(q))}">{html.escape(urlencode(q) or "all")}</a></li>'
                  for q in links)
    body = f"<h1>Search</h1>\n<p>No products match. Page {page}.</p>\n<ul>{nav}</ul>"
    return _html("Search", body)


def loop_page() -> str:
    return _html("Archive", '<h1>Archive</h1>\n<p><a href="a/">Older</a></p>')


def item_page(lang: str, n: int) -> str:
    alternates = "".join(f'<link rel="alternate" hreflang="{o}" href="/{o}/item/{n}">\n' for o in ITEM_LANGS)
    nav = " | ".join(f'<a href="/{o}/item/{n}" hreflang="{o}">{o.upper()}</a>' for o in ITEM_LANGS)
    body = f'<nav>{nav}</nav>\n<h1>Item {n}</h1>\n<p>No. {n}</p>\n<p><a href="/{lang}/item/">Items</a></p>'
    return _html(f"Item {n}", body, lang, alternates)


def item_index(lang: str) -> str:
    items = "".join(f'<li><a href="/{lang}/item/{n}">Item {n}</a></li>' for n in range(1, ITEMS + 1))
    return _html("Items", f"<h1>Items</h1>\n<ul>{items}</ul>", lang)


# --------------------------------------------------------------------------------------------------
# The server


class _HostileSiteServer(_SiteServer):
    counts: Counter[str]
    lock: threading.Lock
    answered: set[str]

    def count(self, path: str) -> None:
        key = next((p for p in PAGES if path == p), None) or next(
            (p for p in PREFIXES if path.startswith(p)), "static"
        )
        with self.lock:
            self.counts[key] += 1

    def first_time(self, path: str) -> bool:
        with self.lock:
            if path in self.answered:
                return False
            self.answered.add(path)
            return True


class _HostileHandler(_Handler):
    server: _HostileSiteServer

    def _special(self, head: bool) -> bool:
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        self.server.count(path)
        if path in PAGES:
            getattr(self, "_" + path.strip("/").removesuffix(".html").replace("-", "_"))(head)
            return True
        if path.startswith("/calendar/"):
            try:
                day = date.fromisoformat(path.removeprefix("/calendar/"))
            except ValueError:
                return self._not_found(head)
            return self._reply(200, calendar_page(day), head)
        if path == "/search":
            return self._reply(200, search_page(parts.query), head)
        if path.startswith("/loop/"):
            return self._reply(200, loop_page(), head) if re.fullmatch(r"/loop/(a/)+", path) else self._not_found(head)
        for lang, prefix in zip(ITEM_LANGS, ITEM_PREFIXES, strict=True):
            if path == prefix:
                return self._reply(200, item_index(lang), head)
            if path.startswith(prefix):
                rest = path.removeprefix(prefix)
                if rest.isdigit() and 1 <= int(rest) <= ITEMS:
                    return self._reply(200, item_page(lang, int(rest)), head)
                return self._not_found(head)
        if path.startswith("/long/"):
            return self._reply(200, _html("Long", "<p>A page with a very long address.</p>"), head)
        if path.startswith("/error/"):
            code = path.removeprefix("/error/")
            if code.isdigit() and 500 <= int(code) <= 599:
                return self._reply(int(code), _html("Error", "<p>Something went wrong.</p>"), head)
            return self._not_found(head)
        return False

    # -- the single pages, named after their paths --
    def _bomb(self, head: bool) -> None:
        self._reply(200, gzip_bomb(), head, [("Content-Encoding", "gzip")])

    def _huge(self, head: bool) -> None:
        self._reply(200, huge_page(), head)

    def _many_tags(self, head: bool) -> None:
        self._reply(200, many_tags_page(), head)

    def _deep(self, head: bool) -> None:
        self._reply(200, deep_page(), head)

    def _binary(self, head: bool) -> None:
        self._reply(200, binary_body(), head, ctype="text/html")

    def _bogus_charset(self, head: bool) -> None:
        self._reply(200, bogus_charset_page(), head, ctype=f"text/html; charset={BOGUS_CHARSET}")

    def _redir_loop(self, head: bool) -> None:
        self._reply(302, b"", head, [("Location", "/redir-loop")])

    def _offsite_redirect(self, head: bool) -> None:
        self._reply(302, b"", head, [("Location", OFFSITE)])

    def _slow(self, head: bool) -> None:
        if not self.server.stopping.wait(SLOW_SECONDS):  # a stopping server just drops the request
            self._reply(200, _html("Slow", "<p>Finally.</p>"), head)

    def _flaky(self, head: bool) -> None:
        if self.server.first_time("/flaky"):
            self._reply(500, _html("Error", "<p>Try again.</p>"), head)
        else:
            body = "<h1>Ferry</h1>\n<p>The first ferry leaves the harbour at seven, weather permitting.</p>"
            self._reply(200, _html("Ferry", body), head)

    def _not_found(self, head: bool) -> bool:
        return self._reply(404, _html("Not found", "<p>Not found.</p>"), head)

    def _reply(
        self,
        status: int,
        body: str | bytes,
        head: bool,
        headers: Sequence[tuple[str, str]] = (),
        ctype: str = "text/html; charset=utf-8",
    ) -> bool:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if not head:
            view = memoryview(data)
            for start in range(0, len(view), _CHUNK):
                self.wfile.write(view[start : start + _CHUNK])
        return True


class HostileServer(LoopbackServer):
    """The hostile site served on 127.0.0.1 in a background thread; a context manager that yields
    itself. :meth:`requests` tells how many requests each route received."""

    def start(self) -> str:
        handler = partial(_HostileHandler, directory=str(self.docroot))
        srv = _HostileSiteServer((LOOPBACK, self.port), handler)
        srv.docroot = str(self.docroot)
        srv.content_types = read_content_types(self.site_dir)
        srv.stopping = threading.Event()
        srv.counts = Counter()
        srv.lock = threading.Lock()
        srv.answered = set()
        self._server = srv
        self._thread = threading.Thread(
            target=partial(srv.serve_forever, poll_interval=0.05), name=f"hostile:{self.port}", daemon=True
        )
        self._thread.start()
        return self.base_url

    def __enter__(self) -> HostileServer:  # type: ignore[override]
        self.start()
        return self

    def counts(self) -> dict[str, int]:
        """Requests so far per route: an exact path of :data:`PAGES`, a prefix of :data:`PREFIXES`,
        or ``"static"``."""
        if self._server is None:
            raise RuntimeError("server not started")
        with self._server.lock:
            return dict(self._server.counts)

    def requests(self, *prefixes: str) -> int:
        """Requests so far to the routes starting with any of ``prefixes``."""
        return sum(n for key, n in self.counts().items() if key.startswith(prefixes))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--port", type=int, default=0, help="default: a free port")
    a = ap.parse_args(argv)
    site = build_hostile_site(a.root, a.port or free_port())
    gzip_bomb()  # built before the first request, not during it
    with site.serve() as server:
        print(f"serving {site.root} at {site.base_url}; seeds in {site.seeds}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print(server.counts(), flush=True)


if __name__ == "__main__":
    main()
