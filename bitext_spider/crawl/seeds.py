"""Seeds file: one site a line.

Several whitespace-separated URLs on one line are one site spread over several hosts; ``#``
starts a comment (at the start of a line or after whitespace, so URL fragments survive); blank
lines are ignored. A malformed line is reported with its line number and skipped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bitext_spider.user_errors import UserError

logger = logging.getLogger(__name__)

_HOSTLIKE = re.compile(r"^[A-Za-z0-9.-]+\.[A-Za-z]{2,}(:\d+)?(/\S*)?$")
_COMMENT = re.compile(r"(^|\s)#.*$")


class SeedsError(UserError):
    """The seeds file cannot be used at all (missing, unreadable, or no valid line)."""


@dataclass(frozen=True)
class Site:
    """One site to crawl: its start URLs and the hosts (``host[:port]``) it may visit."""

    key: str
    start_urls: tuple[str, ...]
    hosts: frozenset[str]


@dataclass
class SeedsReport:
    sites: list[Site] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def normalize_seed_url(token: str) -> str | None:
    """A seed token as an absolute http(s) URL, or None when it is not one."""
    if "://" not in token and _HOSTLIKE.match(token):
        token = "http://" + token
    try:
        parts = urlsplit(token)
        port = parts.port  # raises ValueError on a bad port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    del port
    if not parts.path:
        token = token + "/"
    return token


def site_key(urls: list[str]) -> str:
    """Stable name of a site: its sorted ``host[:port]`` list."""
    return " ".join(sorted({urlsplit(u).netloc.lower() for u in urls}))


def page_site(url: str, domains: Iterable[str] = ()) -> Site:
    """The site of a page that no seeds line named (a page of a user's own spider).

    With ``domains`` (the spider's ``allowed_domains``), the most specific domain the page's host
    is in or under: ``allowed_domains = ["example.org"]`` makes ``en.example.org`` and
    ``fr.example.org`` one site, whose pages are compared with each other.  Otherwise, or for a
    host outside them, the page's ``host[:port]``: the key a one-host seeds line gives the same
    host, so ``scrapy crawl site`` and a user's spider share that site's pages in one database.
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    best = ""
    for domain in domains:
        d = str(domain).strip().lower().lstrip(".")
        name = d.split(":", 1)[0]  # Scrapy's offsite filter allows a port in allowed_domains
        if name and (host == name or host.endswith("." + name)) and len(d) > len(best):
            best = d
    key = best or (host if parts.port is None else f"{host}:{parts.port}")
    return Site(key, (url,), frozenset({key}))


def site_from_key(key: str) -> Site:
    """A site known only by its key (``host[:port]`` names separated by spaces, or a domain)."""
    return Site(key, (), frozenset(key.split()))


def parse_seeds_text(text: str, source: str = "seeds") -> SeedsReport:
    report = SeedsReport()
    seen: dict[str, Site] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = _COMMENT.sub("", raw).strip()
        if not line:
            continue
        urls: list[str] = []
        bad: list[str] = []
        for token in line.split():
            url = normalize_seed_url(token)
            (urls if url else bad).append(url or token)
        if bad:
            report.problems.append(
                f"{source}:{lineno}: not an http(s) URL: {', '.join(repr(b) for b in bad)}; line skipped"
            )
            continue
        key = site_key(urls)
        if key in seen:
            # The same hosts on two lines are one site: merge their start URLs.
            old = seen[key]
            merged = Site(key, tuple(dict.fromkeys(old.start_urls + tuple(urls))), old.hosts)
            seen[key] = merged
            continue
        seen[key] = Site(key, tuple(dict.fromkeys(urls)), frozenset(urlsplit(u).netloc.lower() for u in urls))
    report.sites = list(seen.values())
    return report


def _decode_lines(data: bytes, source: str) -> tuple[str, list[str]]:
    """The file's UTF-8 lines; a line that is not UTF-8 is blanked (keeping line numbers) and reported.

    One bad byte (a Latin-1 accent in a comment, a stray control byte) costs its line, not the
    file, as for any other malformed line.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines: list[str] = []
    problems: list[str] = []
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(f"{source}:{lineno}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                            f"{exc.start + 1}); line skipped")
            lines.append("")
    return "\n".join(lines), problems


def load_seeds(path: str | Path) -> SeedsReport:
    """Read a seeds file; problems are logged with line numbers. Raises SeedsError when unusable."""
    p = Path(path)
    if not p.is_file():
        raise SeedsError(f"seeds file not found: {p} (pass -a seeds=PATH, one site a line)")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SeedsError(f"seeds file {p} cannot be read: {exc.strerror or exc}") from exc
    text, undecodable = _decode_lines(data, str(p))
    report = parse_seeds_text(text, source=str(p))
    report.problems[:0] = undecodable
    for problem in report.problems:
        logger.error(problem)
    if not report.sites:
        raise SeedsError(f"seeds file {p} has no valid site line")
    return report
